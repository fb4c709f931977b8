package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// searchCredits is one search by the harness's engine: Yandex Search API's
// list price of daytime synchronous searches, 488 rubles per 1,000
// (https://aistudio.yandex.ru/docs/ru/search-api/pricing.html), at K 1 and
// 100,000 credits a ruble.
const searchCredits = 48_800

// The web plugin, the :online variant and web_search_options run one
// search through the fake Yandex Search API, put its results in the prompt
// as a system message before the last user message, cite them as
// url_citation annotations (in a stream too), and bill the search as a
// part of its own; what cannot be served is a 400 naming it, and a failed
// search charges nothing.
func TestWebSearchThroughYandex(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	client := sdkClient(key)
	ctx := context.Background()
	user := openai.UserMessage("Что нового в Москве сегодня")
	charged := func(before int64) int64 { return before - balance(t, h.base, key).Data.TotalCredits }

	t.Run("plugin", func(t *testing.T) {
		searches, before := h.fake.YandexSearches(), balance(t, h.base, key).Data.TotalCredits
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "test/model",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), user}},
			option.WithJSONSet("plugins", []map[string]any{{"id": "web", "max_results": 3}}))
		if err != nil {
			t.Fatal(err)
		}
		if h.fake.YandexSearches() != searches+1 {
			t.Fatalf("%d searches ran, want 1", h.fake.YandexSearches()-searches)
		}
		ann := resp.Choices[0].Message.Annotations
		if len(ann) != 3 || ann[0].Type != "url_citation" || !strings.HasPrefix(ann[0].URLCitation.URL, "https://1.search.example/") || ann[2].URLCitation.Title == "" {
			t.Fatalf("annotations %+v", ann)
		}
		var sent struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			Plugins json.RawMessage `json:"plugins"`
		}
		if err := json.Unmarshal(h.fake.LastRequest(), &sent); err != nil {
			t.Fatal(err)
		}
		if len(sent.Messages) != 3 || sent.Messages[1].Role != "system" || !strings.Contains(sent.Messages[1].Content, "https://3.search.example/") ||
			sent.Messages[2].Role != "user" || sent.Plugins != nil {
			t.Fatalf("the upstream got %+v", sent)
		}
		want := promptCredits*resp.Usage.PromptTokens + completionCredits*resp.Usage.CompletionTokens + searchCredits
		if got := charged(before); got != want {
			t.Fatalf("charged %d, want %d (usage %+v)", got, want, resp.Usage)
		}
		var g struct {
			Data struct {
				Credits        int64 `json:"credits"`
				CreditsDetails struct {
					WebSearch int64 `json:"web_search"`
				} `json:"credits_details"`
			} `json:"data"`
		}
		if st := call(t, h.base, "GET", "/api/v1/generation?id="+resp.ID, key, nil, &g); st != 200 || g.Data.CreditsDetails.WebSearch != searchCredits || g.Data.Credits != want {
			t.Fatalf("generation %d %+v", st, g.Data)
		}
	})

	t.Run("online stream", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		body := map[string]any{"model": "test/model:online", "stream": true, "stream_options": map[string]any{"include_usage": true},
			"messages": []map[string]any{{"role": "user", "content": []map[string]any{{"type": "text", "text": "погода в Казани"}}}}}
		resp := postChat(t, h.base, key, body)
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		var cites int
		var usage struct{ PromptTokens, CompletionTokens, Credits int64 }
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			var chunk struct {
				Choices []struct {
					Delta struct {
						Annotations []struct {
							Type        string `json:"type"`
							URLCitation struct {
								URL string `json:"url"`
							} `json:"url_citation"`
						} `json:"annotations"`
					} `json:"delta"`
				} `json:"choices"`
				Usage *struct {
					PromptTokens     int64 `json:"prompt_tokens"`
					CompletionTokens int64 `json:"completion_tokens"`
					Credits          int64 `json:"credits"`
				} `json:"usage"`
			}
			if err := json.Unmarshal([]byte(data), &chunk); err != nil {
				t.Fatalf("%v: %s", err, data)
			}
			for _, c := range chunk.Choices {
				cites += len(c.Delta.Annotations)
			}
			if u := chunk.Usage; u != nil {
				usage.PromptTokens, usage.CompletionTokens, usage.Credits = u.PromptTokens, u.CompletionTokens, u.Credits
			}
		}
		if cites != 5 { // the engine's default
			t.Fatalf("%d citations in the stream, want 5", cites)
		}
		want := promptCredits*usage.PromptTokens + completionCredits*usage.CompletionTokens + searchCredits
		if usage.Credits != want || charged(before) != want {
			t.Fatalf("usage %+v, charged %d, want %d", usage, charged(before), want)
		}
	})

	t.Run("web_search_options", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "test/model", Messages: []openai.ChatCompletionMessageParamUnion{user},
			WebSearchOptions: openai.ChatCompletionNewParamsWebSearchOptions{SearchContextSize: "low"}})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(resp.Choices[0].Message.Annotations); n != 3 || strings.Contains(string(h.fake.LastRequest()), "web_search_options") {
			t.Fatalf("%d annotations; the upstream got %s", n, h.fake.LastRequest())
		}
		if got, want := charged(before), promptCredits*resp.Usage.PromptTokens+completionCredits*resp.Usage.CompletionTokens+searchCredits; got != want {
			t.Fatalf("charged %d, want %d", got, want)
		}
	})

	t.Run("nothing found is still a search", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "test/model:online",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("nothing at all")}})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(resp.Choices[0].Message.Annotations); n != 0 {
			t.Fatalf("%d annotations", n)
		}
		if got, want := charged(before), promptCredits*resp.Usage.PromptTokens+completionCredits*resp.Usage.CompletionTokens+searchCredits; got != want {
			t.Fatalf("charged %d, want %d", got, want)
		}
	})

	for _, tc := range []struct {
		name, param string
		status      int
		body        map[string]any
	}{
		{"unknown engine", "plugins", 400, map[string]any{"plugins": []map[string]any{{"id": "web", "engine": "exa"}}}},
		{"native engine", "plugins", 400, map[string]any{"plugins": []map[string]any{{"id": "web", "engine": "native"}}}},
		{"too many results", "plugins", 400, map[string]any{"plugins": []map[string]any{{"id": "web", "max_results": 21}}}},
		{"bad context size", "web_search_options", 400, map[string]any{"web_search_options": map[string]any{"search_context_size": "huge"}}},
		{"search fails", "", 502, map[string]any{"model": "test/model:online", "messages": []map[string]any{{"role": "user", "content": "fault-500"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"model": "test/model", "messages": []map[string]any{{"role": "user", "content": "hi"}}}
			for k, v := range tc.body {
				body[k] = v
			}
			before := balance(t, h.base, key).Data.TotalCredits
			var e apiError
			if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &e); st != tc.status || tc.param != "" && (e.Error.Param == nil || *e.Error.Param != tc.param) {
				t.Fatalf("status %d: %+v", st, e)
			}
			if c := charged(before); c != 0 {
				t.Fatalf("charged %d", c)
			}
		})
	}

	t.Run("price shown", func(t *testing.T) {
		var m struct {
			Data struct {
				Pricing struct {
					WebSearch string `json:"web_search"`
				} `json:"pricing"`
			} `json:"data"`
		}
		if st := call(t, h.base, "GET", "/api/v1/model/test/model", key, nil, &m); st != 200 || m.Data.Pricing.WebSearch != "48800" {
			t.Fatalf("status %d, pricing.web_search %q", st, m.Data.Pricing.WebSearch)
		}
		var p struct {
			WebSearch struct {
				Engine           string      `json:"engine"`
				CreditsPerSearch json.Number `json:"credits_per_search"`
			} `json:"web_search"`
		}
		if st := call(t, h.base, "GET", "/api/pricing", "", nil, &p); st != 200 || p.WebSearch.Engine != "yandex" || p.WebSearch.CreditsPerSearch != "48800" {
			t.Fatalf("status %d, %+v", st, p)
		}
	})
}

// A gateway with no search engine configured refuses web search with a 400
// naming the member that asked for it, never serving the request without it.
func TestWebSearchWithoutEngineIsRefused(t *testing.T) {
	raw, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "web_search:") {
			kept = append(kept, line)
		}
	}
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte(strings.Join(kept, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChildWith(t, "sqlite://"+filepath.Join(t.TempDir(), "gw.db"), config)
	_, key := account(t, c.base, 10_000_000, nil)
	searches := h.fake.YandexSearches()
	for _, tc := range []struct{ param, model, member string }{
		{"plugins", "test/model", `"plugins":[{"id":"web"}]`},
		{"model", "test/model:online", ""},
		{"web_search_options", "test/model", `"web_search_options":{}`},
	} {
		body := `{"model":"` + tc.model + `","messages":[{"role":"user","content":"hi"}]`
		if tc.member != "" {
			body += "," + tc.member
		}
		var e apiError
		if st := call(t, c.base, "POST", "/api/v1/chat/completions", key, json.RawMessage(body+"}"), &e); st != 400 || e.Error.Param == nil || *e.Error.Param != tc.param {
			t.Fatalf("%s: status %d %+v", tc.param, st, e)
		}
	}
	if h.fake.YandexSearches() != searches {
		t.Fatal("a search ran")
	}
}

// A model that searches on every call (OpenAI's search models) is billed
// its search fee per call: gpt-4o-search-preview's $0.035 a search at the
// default (medium) context size, LiteLLM's search_context_cost_per_query,
// at 100 RUB per USD is 350,000 credits. One without a search price is
// refused before anything goes upstream.
func TestSearchModelIsChargedItsFee(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	client := sdkClient(key)
	resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "test/gpt-4o-search-preview",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("news today")}, WebSearchOptions: openai.ChatCompletionNewParamsWebSearchOptions{SearchContextSize: "medium"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h.fake.LastRequest()), `"web_search_options"`) {
		t.Fatalf("the search model did not get web_search_options: %s", h.fake.LastRequest())
	}
	want := promptCredits*resp.Usage.PromptTokens + completionCredits*resp.Usage.CompletionTokens + 350_000
	if got := before - balance(t, h.base, key).Data.TotalCredits; got != want {
		t.Fatalf("charged %d, want %d (usage %+v)", got, want, resp.Usage)
	}
	before = balance(t, h.base, key).Data.TotalCredits
	var e apiError
	st := call(t, h.base, "POST", "/api/v1/chat/completions", key, map[string]any{"model": "test/unpriced-search",
		"messages": []map[string]any{{"role": "user", "content": "news"}}}, &e)
	if st != 400 || e.Error.Param == nil || *e.Error.Param != "model" || balance(t, h.base, key).Data.TotalCredits != before {
		t.Fatalf("status %d %+v", st, e)
	}
}

// The end user a request names ("user") is on its generation
// (external_user) and in /activity, which groups by it and filters by it.
func TestEndUserInActivity(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := sdkClient(key)
	ids := map[string]string{}
	for _, user := range []string{"alice", "bob", "alice"} {
		resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "test/model",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}, User: openai.String(user)})
		if err != nil {
			t.Fatal(err)
		}
		ids[user] = resp.ID
	}
	var g struct {
		Data struct {
			ExternalUser *string `json:"external_user"`
		} `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/v1/generation?id="+ids["bob"], key, nil, &g); st != 200 || g.Data.ExternalUser == nil || *g.Data.ExternalUser != "bob" {
		t.Fatalf("generation %d external_user %v", st, g.Data.ExternalUser)
	}
	type row struct {
		ExternalUser *string `json:"external_user"`
		Requests     int64   `json:"requests"`
	}
	var all, alice struct{ Data []row }
	if st := call(t, h.base, "GET", "/api/v1/activity", key, nil, &all); st != 200 || len(all.Data) != 2 {
		t.Fatalf("activity %d %+v", st, all.Data)
	}
	if st := call(t, h.base, "GET", "/api/v1/activity?user=alice", key, nil, &alice); st != 200 || len(alice.Data) != 1 ||
		*alice.Data[0].ExternalUser != "alice" || alice.Data[0].Requests != 2 {
		t.Fatalf("alice's activity %d %+v", st, alice.Data)
	}
}
