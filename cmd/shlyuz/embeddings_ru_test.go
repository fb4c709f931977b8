package main

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// Embeddings through YandexGPT (one textEmbedding call a text, numTokens) and
// GigaChat (one call, usage on each item), with the official SDK: the
// upstream's token count is billed per input token.
func TestOpenAISDKEmbeddingsRussian(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := sdkClient(key)
	ctx := context.Background()
	for _, model := range []string{"yagpt/text-search-doc", "giga/Embeddings"} {
		t.Run(model, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			var resp *http.Response
			r, err := client.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: model,
				Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"one", "two three"}}}, option.WithResponseInto(&resp))
			if err != nil {
				t.Fatal(err)
			}
			const tokens = 1 + 3 // the fakes' counts: a quarter of the characters, at least 1
			if len(r.Data) != 2 || r.Usage.PromptTokens != tokens {
				t.Fatalf("reply %+v", r)
			}
			for i, chars := range []int{3, 9} {
				want := fake.EmbeddingVector(chars, fake.EmbeddingDims)
				if d := r.Data[i]; d.Index != int64(i) || len(d.Embedding) != len(want) || float32(d.Embedding[0]) != want[0] || float32(d.Embedding[len(want)-1]) != want[len(want)-1] {
					t.Fatalf("embedding %d: %v, want %v", i, d.Embedding, want)
				}
			}
			if g := checkDebit(t, key, resp, before); g.Data.Credits != promptCredits*tokens {
				t.Fatalf("credits %d, want %d", g.Data.Credits, promptCredits*tokens)
			}
			_, err = client.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: model,
				Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfTokens: []int64{1, 2}}})
			var apierr *openai.Error
			if !errors.As(err, &apierr) || apierr.StatusCode != 400 || apierr.Param != "input" {
				t.Fatalf("token ids: %v", err)
			}
		})
	}
}
