package main

import (
	"strings"
	"testing"
)

// provider.only, ignore and sort choose among a route's upstreams; a name
// the gateway does not have, or an unknown sort, is a 400 before anything is
// reserved.
func TestProviderPreferences(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	for _, tc := range []struct {
		name     string
		model    string
		provider map[string]any
		served   string // the upstream that serves; "" for a 400
		attempts int
		param    string
	}{
		{"route order", "sorted/model", nil, "pricey", 1, ""},
		{"sort by price", "sorted/model", map[string]any{"sort": "price"}, "fake", 1, ""},
		{"only", "mixed/model", map[string]any{"only": []string{"pricey"}}, "pricey", 1, ""},
		{"ignore", "mixed/model", map[string]any{"ignore": []string{"anthropic-dead"}}, "pricey", 1, ""},
		{"ignore every upstream", "sorted/model", map[string]any{"ignore": []string{"pricey", "fake"}}, "", 0, "provider"},
		{"only an unknown name", "mixed/model", map[string]any{"only": []string{"nosuch"}}, "", 0, "provider.only"},
		{"ignore an unknown name", "mixed/model", map[string]any{"ignore": []string{"nosuch"}}, "", 0, "provider.ignore"},
		{"unknown sort", "mixed/model", map[string]any{"sort": "fastest"}, "", 0, "provider.sort"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"model": tc.model, "max_tokens": 20, "messages": []map[string]string{{"role": "user", "content": "hi"}}}
			if tc.provider != nil {
				body["provider"] = tc.provider
			}
			var r struct {
				ID    string   `json:"id"`
				Error apiError `json:"-"`
			}
			var e apiError
			st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &r)
			if tc.served == "" {
				call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &e)
				param := ""
				if e.Error.Param != nil {
					param = *e.Error.Param
				}
				if st < 400 || param != tc.param || (tc.param == "provider.only" && !strings.Contains(e.Error.Message, "it has: ")) {
					t.Fatalf("status %d param %q: %s", st, param, e.Error.Message)
				}
				return
			}
			if st != 200 {
				t.Fatalf("status %d", st)
			}
			var g generationView
			call(t, h.base, "GET", "/api/v1/generation?id="+r.ID, key, nil, &g)
			if g.Data.Upstream != tc.served || len(g.Data.Attempts) != tc.attempts {
				t.Fatalf("served by %q after %+v, want %q", g.Data.Upstream, g.Data.Attempts, tc.served)
			}
		})
	}
}
