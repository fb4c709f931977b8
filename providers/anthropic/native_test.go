package anthropic

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shlyuz/shlyuz"
)

// TestNativeBody checks the client's own Messages body as it goes upstream:
// every field as the client wrote it (its text's <, > and & too), the
// gateway's model and completion ceiling, and the stream flag of the call.
func TestNativeBody(t *testing.T) {
	client := map[string]json.RawMessage{
		"model":         json.RawMessage(`"claude-alias"`),
		"max_tokens":    json.RawMessage(`4096`),
		"stream":        json.RawMessage(`true`),
		"messages":      json.RawMessage(`[{"role":"user","content":"<b>Tom & Jerry</b>"}]`),
		"cache_control": json.RawMessage(`{"type":"ephemeral"}`),
	}
	tests := []struct {
		name      string
		maxTokens int64
		stream    bool
		want      map[string]any
	}{
		{"stream, gateway's ceiling", 1024, true, map[string]any{
			"model": "claude-<x>&y", "max_tokens": 1024.0, "stream": true,
			"messages":      []any{map[string]any{"role": "user", "content": "<b>Tom & Jerry</b>"}},
			"cache_control": map[string]any{"type": "ephemeral"},
		}},
		{"whole reply, client's ceiling", 0, false, map[string]any{
			"model": "claude-<x>&y", "max_tokens": 4096.0,
			"messages":      []any{map[string]any{"role": "user", "content": "<b>Tom & Jerry</b>"}},
			"cache_control": map[string]any{"type": "ephemeral"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &shlyuz.UpstreamRequest{UpstreamModel: "claude-<x>&y", MaxTokens: tt.maxTokens}
			body, err := nativeBody(req, &shlyuz.NativeRequest{Protocol: shlyuz.ProtocolAnthropic, Body: client}, tt.stream)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("body %s\nreads as %#v\nwant     %#v", body, got, tt.want)
			}
			for _, raw := range []string{`"claude-<x>&y"`, `"<b>Tom & Jerry</b>"`} {
				if !bytes.Contains(body, []byte(raw)) {
					t.Errorf("body %s lacks %s as written", body, raw)
				}
			}
		})
	}
}
