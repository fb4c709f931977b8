package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// OpenRouter's plugins are run for chat completions only: on Messages,
// Responses and Gemini's protocol a plugin the client turned on is a 400
// naming plugins (never dropped unsaid), one it turned off is read and kept
// from the upstream (Anthropic and Google refuse members they do not know),
// and nothing is charged for the refusal.
func TestPluginsOnOtherRoutes(t *testing.T) {
	accID, key := account(t, h.base, 50_000_000, nil)
	user := func(text string) []map[string]any { return []map[string]any{{"role": "user", "content": text}} }
	for _, tc := range []struct {
		name, path string
		body       map[string]any
	}{
		{"messages to Anthropic", "/api/v1/messages", map[string]any{"model": "claude/model", "max_tokens": 16, "messages": user("plugins-marker")}},
		{"messages translated", "/api/v1/messages", map[string]any{"model": "test/model", "max_tokens": 16, "messages": user("plugins-marker")}},
		{"responses", "/api/v1/responses", map[string]any{"model": "test/model", "input": "plugins-marker"}},
		{"gemini", "/api/v1/v1beta/models/gemini-2.5-flash:generateContent", map[string]any{
			"contents": []map[string]any{{"role": "user", "parts": []map[string]any{{"text": "plugins-marker"}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			tc.body["plugins"] = []map[string]any{{"id": "web", "max_results": 2}}
			resp, out := post(t, tc.path, key, tc.body)
			if resp.StatusCode != 400 || !strings.Contains(string(out), "plugins") {
				t.Fatalf("web plugin on: status %d %s", resp.StatusCode, out)
			}
			if after := balance(t, h.base, key).Data.TotalCredits; after != before {
				t.Fatalf("the refusal was charged: %d -> %d (%s)", before, after, accID)
			}
			var reached []byte
			see := func(_ *http.Request, body []byte) {
				if bytes.Contains(body, []byte("plugins-marker")) {
					reached = body
				}
			}
			onFakeRequest.Store(&see)
			defer onFakeRequest.Store(nil)
			tc.body["plugins"] = []map[string]any{{"id": "web", "enabled": false}}
			resp, out = post(t, tc.path, key, tc.body)
			if resp.StatusCode != 200 {
				t.Fatalf("web plugin off: status %d %s", resp.StatusCode, out)
			}
			if reached == nil || bytes.Contains(reached, []byte(`"plugins"`)) {
				t.Fatalf("the upstream got %s", reached)
			}
		})
	}
}
