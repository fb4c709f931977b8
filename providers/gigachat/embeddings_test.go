package gigachat

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

// Embed sends every text in one call of /embeddings and adds up the usage
// GigaChat reports on each item.
func TestEmbed(t *testing.T) {
	rec := &adaptertest.Recorder{Suffix: "/embeddings"}
	u := startFake(t, fake.Options{}, rec.Wrap)
	p := u.provider(t, Options{}, nil)
	for _, tc := range []struct {
		name   string
		req    shlyuz.EmbeddingRequest
		tokens int64
		body   string
		status int // of an error; 0: served
	}{
		{"two texts", shlyuz.EmbeddingRequest{Model: "Embeddings", Texts: []string{"кот", "hello world!"}}, 1 + 3,
			`POST /gigachat/api/v1/embeddings {"model":"Embeddings","input":["кот","hello world!"]}`, 0},
		{"giga-r", shlyuz.EmbeddingRequest{Model: "EmbeddingsGigaR", Texts: []string{"abcde"}}, 2,
			`POST /gigachat/api/v1/embeddings {"model":"EmbeddingsGigaR","input":["abcde"]}`, 0},
		{"unknown model", shlyuz.EmbeddingRequest{Model: "Nope", Texts: []string{"x"}}, 0,
			`POST /gigachat/api/v1/embeddings {"model":"Nope","input":["x"]}`, http.StatusBadGateway}, // the operator's model name,
		{"token ids", shlyuz.EmbeddingRequest{Model: "Embeddings", Tokens: [][]int64{{1}}}, 0, "", http.StatusBadRequest},
		{"dimensions", shlyuz.EmbeddingRequest{Model: "Embeddings", Texts: []string{"x"}, Dimensions: 4}, 0, "", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec.Take()
			res, err := p.Embed(context.Background(), &tc.req)
			got := strings.Join(rec.Take(), "\n")
			if got != tc.body {
				t.Errorf("request:\n got  %s\n want %s", got, tc.body)
			}
			if tc.status != 0 {
				if err == nil || shlyuz.AsError(err).Status != tc.status {
					t.Fatalf("err %v, want a %d", err, tc.status)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Vectors) != len(tc.req.Texts) || res.PromptTokens != tc.tokens {
				t.Fatalf("%d vectors, %d tokens; want %d, %d", len(res.Vectors), res.PromptTokens, len(tc.req.Texts), tc.tokens)
			}
			for i, v := range res.Vectors {
				if want := fake.EmbeddingVector(len([]rune(tc.req.Texts[i])), fake.EmbeddingDims); !slices.Equal(v, want) {
					t.Errorf("vector %d = %v, want %v", i, v, want)
				}
			}
		})
	}
}
