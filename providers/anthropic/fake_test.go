package anthropic_test

// Tests of the fake upstream's Anthropic handler (providers/fake/anthropic.go)
// over raw HTTP: the adapter's tests rely on its shapes being Anthropic's.

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// postMessages sends a raw Messages request to the fake.
func postMessages(t *testing.T, u *upstream, body string, header map[string]string) *http.Response {
	t.Helper()
	base := map[string]string{"Content-Type": "application/json", "Anthropic-Version": "2023-06-01"}
	return adaptertest.Post(t, u.TS.URL+"/v1/messages", body, base, header)
}

// anthropicError reads an error body and checks its shape.
func anthropicError(t *testing.T, resp *http.Response) (typ, msg string) {
	t.Helper()
	var body struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &body); err != nil || body.Type != "error" || body.Error.Type == "" || body.Error.Message == "" {
		t.Fatalf("error body %s: %v", raw, err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	return body.Error.Type, body.Error.Message
}

// sseEvent is one named event.
type sseEvent struct {
	name string
	data map[string]any
	raw  string
}

// readEvents reads an SSE body: every event must have an event: line and a
// data: line whose type matches it.
func readEvents(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name == "" || cur.raw == "" {
				t.Fatalf("incomplete event %+v", cur)
			}
			if err := json.Unmarshal([]byte(cur.raw), &cur.data); err != nil {
				t.Fatalf("event %s: %v: %s", cur.name, err, cur.raw)
			}
			if cur.data["type"] != cur.name {
				t.Errorf("event %s carries type %v", cur.name, cur.data["type"])
			}
			out = append(out, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.raw = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	return out
}

func names(events []sseEvent) string {
	var n []string
	for _, e := range events {
		n = append(n, e.name)
	}
	return strings.Join(n, " ")
}

func TestFakeMessage(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 3})
	resp := postMessages(t, u, `{"model":"claude-x","max_tokens":100,"system":"Be brief.","messages":[{"role":"user","content":[{"type":"text","text":"Hello there"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]}]}`, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Request-Id") == "" {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	var m map[string]json.RawMessage
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"type": `"message"`, "role": `"assistant"`, "model": `"claude-x"`,
		"content":       `[{"type":"text","text":"tok0 tok1 tok2"}]`,
		"stop_reason":   `"end_turn"`,
		"stop_sequence": "null",
		// (9+11)/4 + 85; the cache counts are always there, as Anthropic sends them
		"usage": `{"input_tokens":90,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":3}`,
	} {
		if string(m[k]) != want {
			t.Errorf("%s = %s, want %s", k, m[k], want)
		}
	}
	if !strings.HasPrefix(string(m["id"]), `"msg_`) || len(m) != 8 {
		t.Errorf("body %s", raw)
	}
}

func TestFakeStreamOrder(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 3})
	resp := postMessages(t, u, `{"model":"m","max_tokens":2,"stream":true,"messages":[{"role":"user","content":"Hello there"}]}`, nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	events := readEvents(t, resp.Body)
	if got, want := names(events), "message_start content_block_start ping content_block_delta content_block_delta content_block_stop message_delta message_stop"; got != want {
		t.Fatalf("events\n%s\nwant\n%s", got, want)
	}
	msg := events[0].data["message"].(map[string]any)
	if usage := msg["usage"].(map[string]any); usage["input_tokens"] != 2.0 || usage["output_tokens"] != 1.0 {
		t.Errorf("message_start usage %v", usage)
	}
	if msg["stop_reason"] != nil || len(msg["content"].([]any)) != 0 {
		t.Errorf("message_start %s", events[0].raw)
	}
	if got := events[3].raw + events[4].raw; !strings.Contains(got, `"text_delta","text":"tok0"`) || !strings.Contains(got, `"text":" tok1"`) {
		t.Errorf("deltas %s", got)
	}
	if d := events[6].raw; d != `{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":2}}` {
		t.Errorf("message_delta %s", d)
	}
}

func TestFakeToolStream(t *testing.T) {
	u := startFake(t, fake.Options{})
	resp := postMessages(t, u, `{"model":"m","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"weather?"}],"tools":[{"name":"get_weather","input_schema":{"type":"object"}}]}`, nil)
	events := readEvents(t, resp.Body)
	if got := names(events); !strings.HasPrefix(got, "message_start content_block_start ping content_block_delta") ||
		!strings.HasSuffix(got, "content_block_stop message_delta message_stop") {
		t.Fatalf("events %s", got)
	}
	cb := events[1].data["content_block"].(map[string]any)
	if cb["type"] != "tool_use" || cb["name"] != "get_weather" || !strings.HasPrefix(cb["id"].(string), "toolu_") {
		t.Errorf("block start %s", events[1].raw)
	}
	var args strings.Builder
	for _, e := range events {
		if e.name == "content_block_delta" {
			d := e.data["delta"].(map[string]any)
			if d["type"] != "input_json_delta" {
				t.Errorf("delta %s", e.raw)
			}
			args.WriteString(d["partial_json"].(string))
		}
	}
	if args.String() != fake.ToolArguments {
		t.Errorf("arguments %q", args.String())
	}
	if d := events[len(events)-2].raw; !strings.Contains(d, `"stop_reason":"tool_use"`) {
		t.Errorf("message_delta %s", d)
	}
}

func TestFakeMidstreamError(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 4})
	resp := postMessages(t, u, `{"model":"m/fault-midstream-error","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"x"}]}`, nil)
	events := readEvents(t, resp.Body)
	if got := names(events); got != "message_start content_block_start ping content_block_delta content_block_delta error" {
		t.Fatalf("events %s", got)
	}
	if e := events[len(events)-1].raw; e != `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` {
		t.Errorf("error event %s", e)
	}
}

func TestFakeRefusals(t *testing.T) {
	u := startFake(t, fake.Options{APIKey: "sk-ant-right"})
	key := map[string]string{"X-Api-Key": "sk-ant-right"}
	const ok = `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`
	for _, tc := range []struct {
		name   string
		body   string
		header map[string]string
		status int
		typ    string
		msg    string
	}{
		{"no key", ok, nil, 401, "authentication_error", "invalid x-api-key"},
		{"wrong key", ok, map[string]string{"X-Api-Key": "sk-ant-wrong"}, 401, "authentication_error", "invalid x-api-key"},
		{"no version", ok, map[string]string{"X-Api-Key": "sk-ant-right", "Anthropic-Version": ""}, 400, "invalid_request_error", "anthropic-version"},
		{"no max_tokens", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, key, 400, "invalid_request_error", "max_tokens: Field required"},
		{"unknown field", `{"model":"m","max_tokens":10,"n":2,"messages":[{"role":"user","content":"x"}]}`, key, 400, "invalid_request_error", "n: Extra inputs are not permitted"},
		{"temperature", `{"model":"m","max_tokens":10,"temperature":1.5,"messages":[{"role":"user","content":"x"}]}`, key, 400, "invalid_request_error", "temperature"},
		{"system role", `{"model":"m","max_tokens":10,"messages":[{"role":"system","content":"x"}]}`, key, 400, "invalid_request_error", "role"},
		{"empty text", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`, key, 400, "invalid_request_error", "non-empty"},
		{"bad image type", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"x"}}]}]}`, key, 400, "invalid_request_error", "media_type"},
		{"result without use", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"r"}]}]}`, key, 400, "invalid_request_error", "unexpected `tool_use_id`"},
		{"use without result", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":"y"}]}`, key, 400, "invalid_request_error", "without `tool_result`"},
		{"quota", `{"model":"m/fault-quota","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`, key, 400, "invalid_request_error", "credit balance is too low"},
		{"500", `{"model":"m/fault-500","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`, key, 500, "api_error", "Internal server error"},
		{"529", `{"model":"m/fault-529","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`, key, 529, "overloaded_error", "Overloaded"},
		{"429", `{"model":"m/fault-429","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`, key, 429, "rate_limit_error", "rate limit"},
		{"402", `{"model":"m/fault-402","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`, key, 402, "billing_error", "credit balance"},
		{"404", `{"model":"m/fault-404","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`, key, 404, "not_found_error", "model: m/fault-404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := postMessages(t, u, tc.body, tc.header)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			typ, msg := anthropicError(t, resp)
			if typ != tc.typ || !strings.Contains(msg, tc.msg) {
				t.Errorf("error %s %q, want %s %q", typ, msg, tc.typ, tc.msg)
			}
			if tc.status == 429 && resp.Header.Get("Retry-After") != "2" {
				t.Errorf("retry-after %q", resp.Header.Get("Retry-After"))
			}
		})
	}
	if resp := postMessages(t, u, ok, key); resp.StatusCode != 200 {
		t.Errorf("a good request: status %d", resp.StatusCode)
	}
}
