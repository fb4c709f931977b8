package main

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// embeddingTestModels: 1 USD per Mtok of input, 10 credits a token at the test rate.
// gemini/embed goes to the Gemini fake (the gemini/ route), yagpt/ and giga/
// to the YandexGPT and GigaChat fakes (embeddings_ru_test.go).
const embeddingTestModels = `  - {id: "embed/model", name: "Embed", context_length: 8192, input_modalities: [text], output_modalities: [embeddings], usd: {prompt_usd_per_mtok: "1", completion_usd_per_mtok: "0"}}
  - {id: "gemini/embed", name: "Gemini embed", context_length: 8192, input_modalities: [text], output_modalities: [embeddings], usd: {prompt_usd_per_mtok: "1", completion_usd_per_mtok: "0"}}
  - {id: "yagpt/text-search-doc", name: "Yandex embed", context_length: 2048, input_modalities: [text], output_modalities: [embeddings], usd: {prompt_usd_per_mtok: "1", completion_usd_per_mtok: "0"}}
  - {id: "giga/Embeddings", name: "GigaChat embed", context_length: 512, input_modalities: [text], output_modalities: [embeddings], usd: {prompt_usd_per_mtok: "1", completion_usd_per_mtok: "0"}}
`

func TestOpenAISDKEmbeddings(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := sdkClient(key)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		input  openai.EmbeddingNewParamsInputUnion
		dims   int64
		tokens int64 // the fake's count: a quarter of the characters, or the token ids
		chars  []int // of each input, which the fake's vectors depend on
	}{
		{"string", openai.EmbeddingNewParamsInputUnion{OfString: openai.String("Hello, embeddings!")}, 0, 5, []int{18}},
		{"strings", openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"one", "two three"}}, 4, 1 + 3, []int{3, 9}},
		{"token ids", openai.EmbeddingNewParamsInputUnion{OfArrayOfTokens: []int64{1, 2, 3}}, 0, 3, []int{3}},
		{"token arrays", openai.EmbeddingNewParamsInputUnion{OfArrayOfTokenArrays: [][]int64{{1, 2}, {3, 4, 5, 6}}}, 0, 6, []int{2, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			p := openai.EmbeddingNewParams{Model: "embed/model", Input: tc.input}
			dims := fake.EmbeddingDims
			if tc.dims > 0 {
				p.Dimensions, dims = openai.Int(tc.dims), int(tc.dims)
			}
			var resp *http.Response
			r, err := client.Embeddings.New(ctx, p, option.WithResponseInto(&resp))
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Data) != len(tc.chars) || r.Usage.PromptTokens != tc.tokens {
				t.Fatalf("reply %+v", r)
			}
			for i, d := range r.Data {
				want := fake.EmbeddingVector(tc.chars[i], dims)
				if d.Index != int64(i) || len(d.Embedding) != dims || float32(d.Embedding[0]) != want[0] || float32(d.Embedding[dims-1]) != want[dims-1] {
					t.Fatalf("embedding %d: %v, want %v", i, d.Embedding, want)
				}
			}
			g := checkDebit(t, key, resp, before)
			if g.Data.Credits != promptCredits*tc.tokens {
				t.Fatalf("credits %d, want %d", g.Data.Credits, promptCredits*tc.tokens)
			}
		})
	}

	t.Run("base64", func(t *testing.T) {
		// openai-go asks for base64 by default and decodes it; the raw reply is checked here.
		var raw struct {
			Data []struct {
				Embedding string `json:"embedding"`
			} `json:"data"`
		}
		st := call(t, h.base, "POST", "/api/v1/embeddings", key, map[string]any{"model": "embed/model", "input": "abcd", "encoding_format": "base64"}, &raw)
		b, err := base64.StdEncoding.DecodeString(raw.Data[0].Embedding)
		if st != 200 || err != nil || len(b) != 4*fake.EmbeddingDims {
			t.Fatalf("%d %v %d bytes", st, err, len(b))
		}
		for j, want := range fake.EmbeddingVector(4, fake.EmbeddingDims) {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:])); got != want {
				t.Fatalf("element %d: %v, want %v", j, got, want)
			}
		}
	})

	t.Run("gemini", func(t *testing.T) { // no usage from Gemini: the gateway's count is billed
		before := balance(t, h.base, key).Data.TotalCredits
		var resp *http.Response
		r, err := client.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "gemini/embed", Dimensions: openai.Int(4),
			Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"one", "two three"}}}, option.WithResponseInto(&resp))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Data) != 2 || float32(r.Data[1].Embedding[0]) != fake.EmbeddingVector(9, 4)[0] || len(r.Data[1].Embedding) != 4 || r.Usage.PromptTokens < 2 {
			t.Fatalf("reply %+v", r)
		}
		if g := checkDebit(t, key, resp, before); g.Data.Credits != promptCredits*r.Usage.PromptTokens {
			t.Fatalf("credits %d for %d tokens", g.Data.Credits, r.Usage.PromptTokens)
		}
		_, err = client.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "gemini/embed",
			Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfTokens: []int64{1, 2}}})
		var apierr *openai.Error
		if !errors.As(err, &apierr) || apierr.StatusCode != 400 || apierr.Param != "input" {
			t.Fatalf("token ids to Gemini: %v", err)
		}
	})

	t.Run("a vector missing from the upstream's reply", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		_, err := client.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "embed/model",
			Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"one", "two " + fake.MissingEmbeddingMarker}}})
		var apierr *openai.Error
		if !errors.As(err, &apierr) || apierr.StatusCode != 502 || apierr.Type != "upstream_error" {
			t.Fatalf("one vector for two inputs: %v", err)
		}
		if after := balance(t, h.base, key).Data.TotalCredits; after != before {
			t.Fatalf("charged %d credits for a reply one vector short", before-after)
		}
	})

	t.Run("chat model refused", func(t *testing.T) {
		_, err := client.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "test/model",
			Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("x")}})
		var apierr *openai.Error
		if !errors.As(err, &apierr) || apierr.StatusCode != 400 || apierr.Param != "model" {
			t.Fatalf("%v", err)
		}
	})
}
