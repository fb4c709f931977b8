package main

import (
	"strings"
	"testing"
)

// provider.require_parameters over two protocols: params/ routes to an
// Anthropic upstream first (no seed, OpenRouter's table) and an OpenAI one
// (no top_k). Only an upstream that carries every parameter set serves; with
// none, a 400 names the parameters.
func TestRequireParameters(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	for _, tc := range []struct {
		name    string
		params  map[string]any
		require bool
		served  string // "" for a 400
		missing []string
	}{
		{"not required: the route's first serves", map[string]any{"seed": 7}, false, "anthropic", nil},
		{"seed: only OpenAI carries it", map[string]any{"seed": 7}, true, "fake", nil},
		{"top_k: only Anthropic carries it", map[string]any{"top_k": 5}, true, "anthropic", nil},
		{"both carry temperature", map[string]any{"temperature": 0.5}, true, "anthropic", nil},
		{"none carries both", map[string]any{"seed": 7, "top_k": 5}, true, "", []string{"seed", "top_k"}},
		{"none carries it", map[string]any{"repetition_penalty": 1.1, "temperature": 0.5}, true, "", []string{"repetition_penalty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"model": "params/model", "max_tokens": 20,
				"messages": []map[string]string{{"role": "user", "content": "hi"}},
				"provider": map[string]any{"require_parameters": tc.require}}
			for k, v := range tc.params {
				body[k] = v
			}
			if tc.served == "" {
				var e apiError
				st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &e)
				param := e.param()
				want := "unsupported: " + strings.Join(tc.missing, ", ") + "."
				if st != 400 || param != "provider.require_parameters" || !strings.Contains(e.Error.Message, want) {
					t.Fatalf("status %d param %q: %s (want %q)", st, param, e.Error.Message, want)
				}
				return
			}
			g := servedGeneration(t, key, body)
			if g.Data.Upstream != tc.served || len(g.Data.Attempts) != 1 {
				t.Fatalf("served by %q after %+v, want %q", g.Data.Upstream, g.Data.Attempts, tc.served)
			}
		})
	}
}
