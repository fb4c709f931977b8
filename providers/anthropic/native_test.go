package anthropic

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shlyuz/shlyuz"
)

// TestNativeBody checks the client's own Messages body as it goes upstream:
// every field as the client wrote it, byte for byte (its text's <, > and &
// too, and its spaces), the
// gateway's model and completion ceiling, and the stream flag of the call.
func TestNativeBody(t *testing.T) {
	client := map[string]json.RawMessage{
		"model":         json.RawMessage(`"claude-alias"`),
		"max_tokens":    json.RawMessage(`4096`),
		"stream":        json.RawMessage(`true`),
		"messages":      json.RawMessage(`[{"role":"user","content":"<b>Tom & Jerry</b>"}]`),
		"cache_control": json.RawMessage(`{"type":"ephemeral"}`),
		"metadata":      json.RawMessage(`{ "user_id" : "u-1" }`),
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
			"cache_control": map[string]any{"type": "ephemeral"}, "metadata": map[string]any{"user_id": "u-1"},
		}},
		{"whole reply, client's ceiling", 0, false, map[string]any{
			"model": "claude-<x>&y", "max_tokens": 4096.0,
			"messages":      []any{map[string]any{"role": "user", "content": "<b>Tom & Jerry</b>"}},
			"cache_control": map[string]any{"type": "ephemeral"}, "metadata": map[string]any{"user_id": "u-1"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &shlyuz.UpstreamRequest{UpstreamModel: "claude-<x>&y", MaxTokens: tt.maxTokens}
			body := nativeBody(req, &shlyuz.NativeRequest{Protocol: shlyuz.ProtocolAnthropic, Body: client}, tt.stream)
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("body %s\nreads as %#v\nwant     %#v", body, got, tt.want)
			}
			for _, raw := range []string{`"claude-<x>&y"`, `"<b>Tom & Jerry</b>"`, `"metadata":{ "user_id" : "u-1" }`} {
				if !bytes.Contains(body, []byte(raw)) {
					t.Errorf("body %s lacks %s as written", body, raw)
				}
			}
		})
	}
}

// TestNativeBodyThinkingBelowALoweredCap: a thinking budget that fit the
// client's max_tokens but not the cap the gateway lowered it to is lowered
// to the cap less one, never below Anthropic's least (1,024); one that fits,
// adaptive thinking, and a client's own budget at or above its max_tokens
// (Anthropic's refusal to give) go as written.
func TestNativeBodyThinkingBelowALoweredCap(t *testing.T) {
	tests := []struct {
		name          string
		clientMax     string
		thinking      string
		cap           int64
		wantBudget    int64 // 0: the client's thinking as written
		wantAsWritten string
	}{
		{"budget above the lowered cap", `64000`, `{"type":"enabled","budget_tokens":32000}`, 5000, 4999, ""},
		{"budget at the lowered cap", `8000`, `{"budget_tokens":3000,"type":"enabled"}`, 3000, 2999, ""},
		{"cap at the least", `8000`, `{"type":"enabled","budget_tokens":4000}`, 1025, 1024, ""},
		{"budget fits", `64000`, `{"type":"enabled","budget_tokens":2000}`, 5000, 0, `{"type":"enabled","budget_tokens":2000}`},
		{"adaptive", `64000`, `{"type":"adaptive"}`, 5000, 0, `{"type":"adaptive"}`},
		{"the client's own mistake", `2000`, `{"type":"enabled","budget_tokens":2000}`, 1500, 0, `{"type":"enabled","budget_tokens":2000}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := map[string]json.RawMessage{"max_tokens": json.RawMessage(tt.clientMax), "thinking": json.RawMessage(tt.thinking),
				"messages": json.RawMessage(`[{"role":"user","content":"hi"}]`)}
			req := &shlyuz.UpstreamRequest{UpstreamModel: "claude-x", MaxTokens: tt.cap}
			body := nativeBody(req, &shlyuz.NativeRequest{Protocol: shlyuz.ProtocolAnthropic, Body: client}, false)
			var got struct {
				MaxTokens int64 `json:"max_tokens"`
				Thinking  struct {
					Type         string `json:"type"`
					BudgetTokens int64  `json:"budget_tokens"`
				} `json:"thinking"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if got.MaxTokens != tt.cap {
				t.Fatalf("max_tokens %d, want %d", got.MaxTokens, tt.cap)
			}
			if tt.wantAsWritten != "" {
				if !bytes.Contains(body, []byte(`"thinking":`+tt.wantAsWritten)) {
					t.Fatalf("body %s, want thinking as written", body)
				}
				return
			}
			if got.Thinking.BudgetTokens != tt.wantBudget || got.Thinking.Type != "enabled" {
				t.Fatalf("thinking %+v, want budget %d", got.Thinking, tt.wantBudget)
			}
		})
	}
}

// BenchmarkNativeBody is the body of a coding agent's Messages request of
// 150 KB as it goes to an Anthropic upstream.
func BenchmarkNativeBody(b *testing.B) {
	text, _ := json.Marshal(string(bytes.Repeat([]byte("func main() {\n\tfmt.Println(\"a line of code\")\n}\n"), 3000)))
	client := map[string]json.RawMessage{
		"model":      json.RawMessage(`"claude-sonnet-4"`),
		"max_tokens": json.RawMessage(`4096`),
		"system":     json.RawMessage(`"You are a careful coding assistant."`),
		"messages":   json.RawMessage(`[{"role":"user","content":` + string(text) + `}]`),
	}
	req := &shlyuz.UpstreamRequest{UpstreamModel: "claude-sonnet-4-20250514"}
	n := &shlyuz.NativeRequest{Protocol: shlyuz.ProtocolAnthropic, Body: client}
	b.SetBytes(int64(len(client["messages"])))
	b.ReportAllocs()
	for b.Loop() {
		nativeBody(req, n, true)
	}
}

// TestNativeStreamBodyInParts: a stream's large messages go as the client's
// own span between the adapter's bytes, and the parts say what nativeBody
// says; small ones go in one body.
func TestNativeStreamBodyInParts(t *testing.T) {
	big := json.RawMessage(`[{"role":"user","content":"` + string(bytes.Repeat([]byte("x"), nativeStreamMin)) + `"}]`)
	for _, msgs := range []json.RawMessage{big, json.RawMessage(`[{"role":"user","content":"hi"}]`)} {
		n := &shlyuz.NativeRequest{Protocol: shlyuz.ProtocolAnthropic, Body: map[string]json.RawMessage{
			"model": json.RawMessage(`"c"`), "max_tokens": json.RawMessage(`5`), "messages": msgs, "system": json.RawMessage(`"s"`)}}
		req := &shlyuz.UpstreamRequest{UpstreamModel: "claude-x", MaxTokens: 9}
		body, parts := nativeStreamBody(req, n)
		if (parts != nil) != (len(msgs) >= nativeStreamMin) {
			t.Fatalf("%d bytes of messages: parts %v", len(msgs), parts != nil)
		}
		if parts != nil {
			if &parts[1][0] != &msgs[0] {
				t.Fatal("the messages were copied")
			}
			body = bytes.Join(parts, nil)
		}
		want := nativeBody(req, n, true)
		var g, w map[string]any
		if err := json.Unmarshal(body, &g); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		_ = json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%.200s\nwant the members of\n%.200s", body, want)
		}
	}
}

// BenchmarkBuildBodyLarge is a chat request of 150 KB of code (an OpenAI
// SDK asking for Claude) translated into Anthropic's Messages body.
func BenchmarkBuildBodyLarge(b *testing.B) {
	text, _ := json.Marshal(string(bytes.Repeat([]byte("func main() {\n\tfmt.Println(\"a line of code\")\n}\n"), 3000)))
	f := map[string]json.RawMessage{"model": json.RawMessage(`"claude/x"`),
		"messages": json.RawMessage(`[{"role":"system","content":"Be careful."},{"role":"user","content":` + string(text) + `}]`)}
	req := &shlyuz.UpstreamRequest{UpstreamModel: "x", Fields: f, MaxTokens: 100}
	b.SetBytes(int64(len(f["messages"])))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := buildBody(req, true); err != nil {
			b.Fatal(err)
		}
	}
}
