package main

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// The :online variant on the Responses API, through openai-go: one search
// through the fake Yandex Search API, its results cited as the Responses
// API's url_citation annotations of the output text (in the final Response
// of a stream too, after annotation events), and the search billed as a
// part of its own.
func TestWebSearchOnResponses(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	client := sdkClient(key)
	p := responses.ResponseNewParams{Model: "test/model:online", MaxOutputTokens: openai.Int(100),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("погода в Казани")}}
	check := func(t *testing.T, r responses.Response, before int64) {
		t.Helper()
		if len(r.Output) != 1 || len(r.Output[0].Content) != 1 {
			t.Fatalf("output %+v", r.Output)
		}
		ann := r.Output[0].Content[0].Annotations
		if len(ann) != 5 || ann[0].Type != "url_citation" || !strings.HasPrefix(ann[0].URL, "https://1.search.example/") || ann[4].Title == "" {
			t.Fatalf("annotations %+v", ann)
		}
		want := promptCredits*r.Usage.InputTokens + completionCredits*r.Usage.OutputTokens + searchCredits
		if got := before - balance(t, h.base, key).Data.TotalCredits; got != want {
			t.Fatalf("charged %d, want %d (usage %+v)", got, want, r.Usage)
		}
	}
	t.Run("plain", func(t *testing.T) {
		searches, before := h.fake.YandexSearches(), balance(t, h.base, key).Data.TotalCredits
		r, err := client.Responses.New(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if h.fake.YandexSearches() != searches+1 {
			t.Fatalf("%d searches ran, want 1", h.fake.YandexSearches()-searches)
		}
		check(t, *r, before)
	})
	t.Run("stream", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		r, types := streamResponse(t, client, p)
		if !types["response.output_text.annotation.added"] {
			t.Fatalf("no annotation events: %v", types)
		}
		check(t, r, before)
	})
}
