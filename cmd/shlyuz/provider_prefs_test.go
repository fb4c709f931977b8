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
				param := e.param()
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

// The media routes (images, embeddings, an image-only model through chat)
// take provider.only, ignore and sort as chat does: a name the gateway does
// not have is a 400 naming the field, and excluding the route's every
// upstream is refused, before anything is reserved or charged.
func TestProviderPreferencesOnMedia(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	chat := func(provider map[string]any) map[string]any {
		return map[string]any{"model": "img/small", "messages": []map[string]string{{"role": "user", "content": "a red kite"}}, "provider": provider}
	}
	for _, tc := range []struct {
		name, path string
		body       map[string]any
		param      string // "" for a 200
	}{
		{"images: only the fake", "/api/v1/images", map[string]any{"model": "img/small", "prompt": "a kite", "provider": map[string]any{"only": []string{"fake"}, "sort": "price"}}, ""},
		{"images: only an unknown name", "/api/v1/images", map[string]any{"model": "img/small", "prompt": "a kite", "provider": map[string]any{"only": []string{"nosuch"}}}, "provider.only"},
		{"images: ignore every upstream", "/api/v1/images", map[string]any{"model": "img/small", "prompt": "a kite", "provider": map[string]any{"ignore": []string{"fake"}}}, "provider"},
		{"images: unknown sort", "/api/v1/images", map[string]any{"model": "img/small", "prompt": "a kite", "provider": map[string]any{"sort": "fastest"}}, "provider.sort"},
		{"embeddings: ignore every upstream", "/api/v1/embeddings", map[string]any{"model": "embed/model", "input": "a kite", "provider": map[string]any{"ignore": []string{"fake"}}}, "provider"},
		{"image-only model through chat: ignore every upstream", "/api/v1/chat/completions", chat(map[string]any{"ignore": []string{"fake"}}), "provider"},
		{"image-only model through chat: only the fake", "/api/v1/chat/completions", chat(map[string]any{"only": []string{"fake"}}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			var e apiError
			st := call(t, h.base, "POST", tc.path, key, tc.body, &e)
			spent := before - balance(t, h.base, key).Data.TotalCredits
			if tc.param == "" {
				if st != 200 || spent <= 0 {
					t.Fatalf("status %d, %d credits spent", st, spent)
				}
				return
			}
			param := e.param()
			if st < 400 || st >= 500 || param != tc.param || spent != 0 {
				t.Fatalf("status %d param %q (%s), %d credits spent", st, param, e.Error.Message, spent)
			}
		})
	}
}
