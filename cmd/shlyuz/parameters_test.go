package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

// A strict fake OpenAI upstream (it refuses what OpenAI refuses) gets only
// what OpenAI takes: OpenRouter's parameters it does not take are dropped
// and named on the generation record, reasoning becomes reasoning_effort
// for a reasoning model, and the routing fields never go up; "user" is kept
// on the record.
func TestParametersCarriedOrDropped(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	for _, tc := range []struct {
		name, model string
		sent        map[string]string // raw values the upstream must get
		absent      []string
		dropped     []string
	}{
		{"plain model", "test/model", map[string]string{"temperature": "0.5", "user": `"end-user-7"`},
			[]string{"top_k", "reasoning", "include_reasoning", "plugins", "x_custom", "models", "provider", "reasoning_effort"},
			[]string{"include_reasoning", "reasoning", "top_k"}},
		{"reasoning model", "test/gpt-5", map[string]string{"reasoning_effort": `"high"`, "user": `"end-user-7"`},
			[]string{"top_k", "reasoning", "include_reasoning", "plugins", "x_custom", "temperature", "max_tokens"},
			[]string{"temperature", "top_k"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent map[string]json.RawMessage
			see := func(_ *http.Request, body []byte) {
				var m map[string]json.RawMessage
				if json.Unmarshal(body, &m) == nil && string(m["user"]) == `"end-user-7"` {
					sent = m
				}
			}
			onFakeRequest.Store(&see)
			defer onFakeRequest.Store(nil)
			body := withFields(chatBody(tc.model, false, 20), "temperature", 0.5, "top_k", 40, "reasoning", map[string]any{"effort": "high"},
				"include_reasoning", true, "plugins", []map[string]any{{"id": "web", "enabled": false}}, "x_custom", 1, "user", "end-user-7",
				"models", []string{tc.model}, "provider", map[string]any{"allow_fallbacks": true})
			var r struct {
				ID string `json:"id"`
			}
			if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &r); st != 200 {
				t.Fatalf("status %d", st)
			}
			for k, want := range tc.sent {
				if got := string(sent[k]); got != want {
					t.Errorf("%s: sent %s, want %s", k, got, want)
				}
			}
			for _, k := range tc.absent {
				if _, ok := sent[k]; ok {
					t.Errorf("%s reached the upstream", k)
				}
			}
			var g struct {
				Data struct {
					Dropped []string `json:"dropped_parameters"`
					User    string   `json:"user"`
				} `json:"data"`
			}
			call(t, h.base, "GET", "/api/v1/generation?id="+r.ID, key, nil, &g)
			if !slices.Equal(g.Data.Dropped, tc.dropped) || g.Data.User != "end-user-7" {
				t.Fatalf("dropped %v, user %q; want %v", g.Data.Dropped, g.Data.User, tc.dropped)
			}
		})
	}
}

// Zero-completion insurance (OpenRouter's): a 200 with no completion token
// and no finish reason costs nothing, and its record says what came back.
func TestZeroCompletionInsurance(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	var r chatReply
	resp := postChat(t, h.base, key, chatBody("faulty/fault-empty", false, 0))
	_ = jsonDecode(resp.Body, &r)
	resp.Body.Close()
	if resp.StatusCode != 200 || r.Usage.Credits != 0 {
		t.Fatalf("status %d, credits %d", resp.StatusCode, r.Usage.Credits)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; after != before {
		t.Fatalf("charged %d for nothing", before-after)
	}
	var g generationView
	call(t, h.base, "GET", "/api/v1/generation?id="+resp.Header.Get("X-Generation-Id"), key, nil, &g)
	if g.Data.Credits != 0 || g.Data.TokensCompletion != 0 || g.Data.TokensPrompt == 0 {
		t.Fatalf("record %+v", g.Data)
	}
}

// Variants and provider preferences: honoured, or a 400 naming what no
// upstream meets. sorted/ goes to pricey (slug openai, no data collection,
// fp8) then fake (nothing declared).
func TestVariantsAndPreferences(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	for _, tc := range []struct {
		name     string
		model    string
		provider map[string]any
		status   int
		served   string // the upstream, for a 200; the error's param otherwise
	}{
		{"floor", "sorted/model:floor", nil, 200, "fake"},
		{"nitro", "test/model:nitro", nil, 200, "fake"},
		{"thinking", "test/model:thinking", nil, 200, "fake"},
		{"online", "test/model:online", nil, 200, "fake"},
		{"free of a priced model", "test/model:free", nil, 400, "model"},
		{"unknown variant", "test/model:bogus", nil, 404, ""},
		{"a slug in only", "sorted/model", map[string]any{"only": []string{"openai"}, "sort": "price"}, 200, "pricey"},
		{"a slug in ignore", "sorted/model", map[string]any{"ignore": []string{"openai"}}, 200, "fake"},
		{"no data collection", "sorted/model", map[string]any{"data_collection": "deny", "sort": "price"}, 200, "pricey"},
		{"no data collection, none meets", "test/model", map[string]any{"data_collection": "deny"}, 400, "provider.data_collection"},
		{"zero retention, none meets", "sorted/model", map[string]any{"zdr": true}, 400, "provider.zdr"},
		{"quantization unknown", "test/model", map[string]any{"quantizations": []string{"unknown"}}, 200, "fake"},
		{"quantization fp8", "sorted/model", map[string]any{"quantizations": []string{"fp8"}, "sort": "price"}, 200, "pricey"},
		{"quantization none meets", "test/model", map[string]any{"quantizations": []string{"bf16"}}, 400, "provider.quantizations"},
		// max_price in USD per million tokens: test/model lists $1 and $2, sorted/ routes pricey (×2) before fake.
		{"max_price at the list price", "test/model", map[string]any{"max_price": map[string]any{"prompt": 1, "completion": "2"}}, 200, "fake"},
		{"max_price below it", "test/model", map[string]any{"max_price": map[string]any{"completion": 1.99}}, 400, "provider.max_price"},
		{"max_price leaves the dearer out", "sorted/model", map[string]any{"max_price": map[string]any{"prompt": 1.5}}, 200, "fake"},
		{"max_price of a request", "test/model", map[string]any{"max_price": map[string]any{"request": 0}}, 200, "fake"},
		{"max_price per image", "test/model", map[string]any{"max_price": map[string]any{"image": 1}}, 400, "provider.max_price"},
		{"a plugin not served", "test/model", nil, 400, "plugins"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := chatBody(tc.model, false, 10)
			if tc.provider != nil {
				body["provider"] = tc.provider
			}
			if tc.name == "a plugin not served" {
				body["plugins"] = []map[string]any{{"id": "file-parser"}}
			}
			if tc.status != 200 {
				var e apiError
				st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &e)
				param := e.param()
				if st != tc.status || (tc.served != "" && param != tc.served) {
					t.Fatalf("status %d param %q: %s", st, param, e.Error.Message)
				}
				return
			}
			g := servedGeneration(t, key, body)
			if g.Data.Upstream != tc.served {
				t.Fatalf("served by %q, want %q", g.Data.Upstream, tc.served)
			}
		})
	}
}
