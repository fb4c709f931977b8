package yandex_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// Embed calls textEmbedding once per text, in order, and adds up the
// replies' numTokens (strings on the wire).
func TestEmbed(t *testing.T) {
	rec := &adaptertest.Recorder{}
	u := &upstream{adaptertest.StartFake(t, fake.Options{APIKey: apiKey}, rec.Wrap)}
	p := u.provider(t, nil)
	for _, tc := range []struct {
		name   string
		req    shlyuz.EmbeddingRequest
		dims   int
		tokens int64
		bodies []string
	}{
		{"two texts", shlyuz.EmbeddingRequest{Model: "text-search-doc", Texts: []string{"кот", "hello world!"}}, 8, 1 + 3, []string{
			`POST /foundationModels/v1/textEmbedding {"modelUri":"emb://b1gtestfolder/text-search-doc/latest","text":"кот"}`,
			`POST /foundationModels/v1/textEmbedding {"modelUri":"emb://b1gtestfolder/text-search-doc/latest","text":"hello world!"}`}},
		{"dimensions", shlyuz.EmbeddingRequest{Model: "text-search-query", Texts: []string{"abcde"}, Dimensions: 4}, 4, 2, []string{
			`POST /foundationModels/v1/textEmbedding {"modelUri":"emb://b1gtestfolder/text-search-query/latest","text":"abcde","dim":"4"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec.Take()
			res, err := p.Embed(context.Background(), &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Vectors) != len(tc.req.Texts) || res.PromptTokens != tc.tokens {
				t.Fatalf("%d vectors, %d tokens; want %d, %d", len(res.Vectors), res.PromptTokens, len(tc.req.Texts), tc.tokens)
			}
			for i, v := range res.Vectors {
				if want := fake.EmbeddingVector(len([]rune(tc.req.Texts[i])), tc.dims); !slices.Equal(v, want) {
					t.Errorf("vector %d = %v, want %v", i, v, want)
				}
			}
			if bodies := rec.Take(); !slices.Equal(bodies, tc.bodies) {
				t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(bodies, "\n"), strings.Join(tc.bodies, "\n"))
			}
		})
	}
	if _, err := p.Embed(context.Background(), &shlyuz.EmbeddingRequest{Model: "text-search-doc", Tokens: [][]int64{{1, 2}}}); shlyuz.AsError(err).Status != http.StatusBadRequest {
		t.Errorf("token ids: %v, want a 400", err)
	}
}
