package fake_test

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/shlyuz/shlyuz/providers/fake"
)

// The fake refuses what OpenAI refuses, in OpenAI's words.
func TestRefusesUnknownArguments(t *testing.T) {
	_, url := start(t, fake.Options{})
	for _, tc := range []struct {
		name, body string
		status     int
		message    string
		param      any
	}{
		{"taken", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"user":"u","seed":1}`, 200, "", nil},
		{"top_k", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"top_k":5}`, 400,
			"Unrecognized request argument supplied: top_k", nil},
		{"reasoning object", `{"model":"o3","reasoning":{"effort":"low"},"messages":[{"role":"user","content":"hi"}]}`, 400,
			"Unrecognized request argument supplied: reasoning", nil},
		{"reasoning_effort, no reasoning model", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"low"}`, 400,
			"Unsupported parameter: 'reasoning_effort' is not supported with this model.", "reasoning_effort"},
		{"reasoning_effort, reasoning model", `{"model":"gpt-5","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"low"}`, 200, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, url, tc.body, nil)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			if tc.status == 200 {
				return
			}
			var e struct {
				Error map[string]any `json:"error"`
			}
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatal(err)
			}
			if e.Error["message"] != tc.message || e.Error["type"] != "invalid_request_error" || e.Error["param"] != tc.param {
				t.Fatalf("error %v", e.Error)
			}
			if _, ok := e.Error["code"]; !ok {
				t.Fatalf("no code member: %s", b)
			}
		})
	}
}
