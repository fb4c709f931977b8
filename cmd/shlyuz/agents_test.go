package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// postRaw posts body to path with the headers and returns the status, the
// reply's headers and its body.
func postRaw(t *testing.T, path string, body any, headers map[string]string) (int, http.Header, []byte) {
	t.Helper()
	resp, out := postWith(t, path, body, headers)
	return resp.StatusCode, resp.Header, out
}

// postWith posts body as JSON to path with the headers and returns the
// reply (its body read and closed) and its body.
func postWith(t *testing.T, path string, body any, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", h.base+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, out
}

// A Messages request as Claude Code sends it: its own model names (dated
// and undated), a system message mid-conversation, and a completion cap
// above what the model produces. It is served, clamped to the model's
// output limit (Anthropic's documented 64,000 for Sonnet 4.5 and Haiku 4.5),
// and the reply names the model as the client did.
func TestMessagesTakeClaudeCodesShapes(t *testing.T) {
	_, key := account(t, h.base, 50_000_000, nil)
	for _, model := range []string{"claude-sonnet-4-5-20250929", "claude-haiku-4-5", "claude/model"} {
		t.Run(model, func(t *testing.T) {
			body := map[string]any{
				"model": model, "max_tokens": 128000,
				"system": []map[string]any{{"type": "text", "text": "You are Claude Code."}},
				"messages": []map[string]any{
					{"role": "user", "content": "hi"},
					{"role": "assistant", "content": "Hello."},
					{"role": "system", "content": "The user switched to plan mode."},
					{"role": "user", "content": []map[string]any{{"type": "text", "text": "plan it"}}},
				},
				"tools": []map[string]any{{"name": "Read", "description": "Reads a file.", "input_schema": map[string]any{
					"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []string{"path"}}}},
			}
			st, hdr, out := postRaw(t, "/api/v1/messages", body, map[string]string{
				"Authorization": "Bearer " + key, "Anthropic-Beta": "mid-conversation-system-2026-04-07"})
			if st != 200 {
				t.Fatalf("status %d: %s", st, out)
			}
			var msg struct {
				Type  string `json:"type"`
				Model string `json:"model"`
			}
			if err := json.Unmarshal(out, &msg); err != nil || msg.Type != "message" || msg.Model != model {
				t.Fatalf("reply %s", out)
			}
			want := "64000"
			if model == "claude/model" {
				want = "4096" // the test model's limit
			}
			if got := hdr.Get("X-Shlyuz-Max-Tokens"); got != want {
				t.Fatalf("max tokens sent %q, want %q", got, want)
			}
			if hdr.Get("X-Generation-Id") == "" {
				t.Fatal("no generation id")
			}
		})
	}
}

// A key's ceiling refuses a Messages request as Anthropic refuses one out of
// credits or over a spend limit: 402 billing_error, which Claude Code shows
// as what it is (a 403 reads to it as a failed login).
func TestMessagesCeilingIsABillingError(t *testing.T) {
	_, key := account(t, h.base, 50_000_000, map[string]any{"name": "capped", "limit": 100})
	for _, tc := range []struct {
		name string
		key  string
	}{{"ceiling", key}, {"balance", mustKey(t, 100)}} {
		t.Run(tc.name, func(t *testing.T) {
			st, _, out := postRaw(t, "/api/v1/messages", map[string]any{
				"model": "claude-haiku-4-5", "max_tokens": 1000, "messages": []map[string]any{{"role": "user", "content": "hi"}},
			}, map[string]string{"x-api-key": tc.key})
			var e struct {
				Type  string `json:"type"`
				Error struct {
					Type string `json:"type"`
				} `json:"error"`
			}
			if err := json.Unmarshal(out, &e); err != nil || st != 402 || e.Type != "error" || e.Error.Type != "billing_error" {
				t.Fatalf("status %d %s", st, out)
			}
		})
	}
}
