package yandex

import "testing"

// textEmbedding's request: modelUri emb://<folder>/<model>/<version>, one
// text, dim as a string only when asked for.
func TestEmbeddingBody(t *testing.T) {
	for _, tc := range []struct {
		model, text string
		dims        int
		want        string
	}{
		{"text-search-doc", "кот", 0, `{"modelUri":"emb://b1g/text-search-doc/latest","text":"кот"}`},
		{"text-search-query/rc", "q", 0, `{"modelUri":"emb://b1g/text-search-query/rc","text":"q"}`},
		{"emb://other/text-search-doc/latest", "x", 256, `{"modelUri":"emb://other/text-search-doc/latest","text":"x","dim":"256"}`},
		{"text-search-doc", "<b>&</b>", 0, `{"modelUri":"emb://b1g/text-search-doc/latest","text":"\u003cb\u003e\u0026\u003c/b\u003e"}`},
	} {
		if got := string(embeddingBody("b1g", tc.model, tc.text, tc.dims)); got != tc.want {
			t.Errorf("%s %q:\n got  %s\n want %s", tc.model, tc.text, got, tc.want)
		}
	}
}
