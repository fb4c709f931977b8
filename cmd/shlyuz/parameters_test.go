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
				"include_reasoning", true, "plugins", []map[string]any{{"id": "response-healing"}}, "x_custom", 1, "user", "end-user-7",
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
