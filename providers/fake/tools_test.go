package fake_test

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/providers/fake"
)

const weatherTools = `[{"type":"function","function":{"name":"get_weather","description":"Weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},{"type":"function","function":{"name":"get_time"}}]`

type wireToolCall struct {
	Index    *int    `json:"index"`
	ID       *string `json:"id"`
	Type     *string `json:"type"`
	Function struct {
		Name      *string          `json:"name"`
		Arguments *json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func TestToolCallReply(t *testing.T) {
	_, url := start(t, fake.Options{ReplyTokens: 8})
	// max_tokens does not cut a tool call short.
	body := `{"model":"m","messages":[{"role":"user","content":"Weather in Moscow?"}],"tools":` + weatherTools + `,"max_tokens":2}`
	resp := post(t, url, body, nil)
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, raw)
	}
	var r struct {
		Choices []struct {
			Message struct {
				Role      string          `json:"role"`
				Content   json.RawMessage `json:"content"`
				ToolCalls []wireToolCall  `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage usage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Choices) != 1 {
		t.Fatalf("reply %s: %v", raw, err)
	}
	c := r.Choices[0]
	if c.Message.Role != "assistant" || string(c.Message.Content) != "null" || c.FinishReason != "tool_calls" {
		t.Errorf("role %q content %s finish %q, want assistant, null, tool_calls", c.Message.Role, c.Message.Content, c.FinishReason)
	}
	if len(c.Message.ToolCalls) != 1 {
		t.Fatalf("tool calls %s, want 1", raw)
	}
	tc := c.Message.ToolCalls[0]
	if tc.ID == nil || !strings.HasPrefix(*tc.ID, "call_") || tc.Type == nil || *tc.Type != "function" ||
		tc.Function.Name == nil || *tc.Function.Name != "get_weather" || tc.Index != nil {
		t.Errorf("tool call %s", raw)
	}
	var args string
	if tc.Function.Arguments == nil || json.Unmarshal(*tc.Function.Arguments, &args) != nil || args != fake.ToolArguments {
		t.Errorf("arguments %s, want the JSON string of %s", *tc.Function.Arguments, fake.ToolArguments)
	}
	if r.Usage.CompletionTokens != fake.ToolCallTokens || r.Usage.TotalTokens != r.Usage.PromptTokens+fake.ToolCallTokens {
		t.Errorf("usage %+v, want %d completion tokens", r.Usage, fake.ToolCallTokens)
	}
}

func TestToolResultGetsText(t *testing.T) {
	_, url := start(t, fake.Options{ReplyTokens: 3})
	for _, role := range []string{"tool", "function"} {
		t.Run(role, func(t *testing.T) {
			body := `{"model":"m","messages":[{"role":"user","content":"Weather?"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},` +
				`{"role":"` + role + `","tool_call_id":"call_1","name":"get_weather","content":"{\"temp\":-3}"}],"tools":` + weatherTools + `}`
			resp := post(t, url, body, nil)
			var r struct {
				Choices []struct {
					Message struct {
						Content   string            `json:"content"`
						ToolCalls []json.RawMessage `json:"tool_calls"`
					} `json:"message"`
					FinishReason string `json:"finish_reason"`
				} `json:"choices"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Choices) != 1 {
				t.Fatalf("reply: %v", err)
			}
			if c := r.Choices[0]; c.Message.Content != "tok0 tok1 tok2" || c.FinishReason != "stop" || c.Message.ToolCalls != nil {
				t.Errorf("content %q, finish %q, %d tool calls; want the text answer \"tok0 tok1 tok2\", stop", c.Message.Content, c.FinishReason, len(c.Message.ToolCalls))
			}
		})
	}
}

// toolStream reads a tool-call stream: its chunks (without [DONE]) and the
// deltas of its first choice.
func toolStream(t *testing.T, url, model string, includeUsage bool) (chunks []chunk, raw []string, err error) {
	t.Helper()
	body := `{"model":"` + model + `","messages":[{"role":"user","content":"Weather in Moscow?"}],"tools":` + weatherTools + `,"stream":true`
	if includeUsage {
		body += `,"stream_options":{"include_usage":true}`
	}
	resp := post(t, url, body+"}", nil)
	evs, err := events(t, resp.Body)
	for _, ev := range evs {
		if ev == "[DONE]" {
			continue
		}
		var c chunk
		if json.Unmarshal([]byte(ev), &c) == nil {
			chunks = append(chunks, c)
		}
		raw = append(raw, ev)
	}
	return chunks, raw, err
}

func TestToolCallStream(t *testing.T) {
	_, url := start(t, fake.Options{ReplyTokens: 8})
	chunks, raw, err := toolStream(t, url, "m", true)
	if err != nil {
		t.Fatal(err)
	}
	// role+call, ToolCallTokens argument fragments, finish, usage
	if want := 1 + fake.ToolCallTokens + 1 + 1; len(chunks) != want || len(raw) != want {
		t.Fatalf("%d chunks, want %d: %q", len(chunks), want, raw)
	}
	var args strings.Builder
	for i, c := range chunks {
		if i == len(chunks)-1 { // usage
			var u usage
			if len(c.Choices) != 0 || json.Unmarshal(c.Usage, &u) != nil || u.CompletionTokens != fake.ToolCallTokens {
				t.Errorf("usage chunk %s", raw[i])
			}
			continue
		}
		if len(c.Choices) != 1 {
			t.Fatalf("chunk %d: %s", i, raw[i])
		}
		d, fin := c.Choices[0].Delta, c.Choices[0].FinishReason
		if i == len(chunks)-2 { // finish
			if len(d) != 0 || fin == nil || *fin != "tool_calls" {
				t.Errorf("finish chunk %s", raw[i])
			}
			continue
		}
		if fin != nil {
			t.Errorf("chunk %d finishes early: %s", i, raw[i])
		}
		var calls []wireToolCall
		if err := json.Unmarshal(d["tool_calls"], &calls); err != nil || len(calls) != 1 || calls[0].Index == nil || *calls[0].Index != 0 {
			t.Fatalf("chunk %d: tool_calls without index 0: %s", i, raw[i])
		}
		tc := calls[0]
		if tc.Function.Arguments == nil {
			t.Fatalf("chunk %d: no arguments: %s", i, raw[i])
		}
		var frag string
		if err := json.Unmarshal(*tc.Function.Arguments, &frag); err != nil {
			t.Fatalf("chunk %d: arguments not a string: %s", i, raw[i])
		}
		if i == 0 {
			if string(d["role"]) != `"assistant"` || string(d["content"]) != "null" ||
				tc.ID == nil || !strings.HasPrefix(*tc.ID, "call_") || tc.Type == nil || *tc.Type != "function" ||
				tc.Function.Name == nil || *tc.Function.Name != "get_weather" || frag != "" {
				t.Errorf("first chunk %s, want role, content null and the call's id, type, name and empty arguments", raw[i])
			}
			continue
		}
		if tc.ID != nil || tc.Type != nil || tc.Function.Name != nil || len(d) != 1 {
			t.Errorf("fragment chunk %d carries more than index and arguments: %s", i, raw[i])
		}
		if frag == "" {
			t.Errorf("fragment chunk %d has empty arguments: %s", i, raw[i])
		}
		args.WriteString(frag)
	}
	if args.String() != fake.ToolArguments {
		t.Errorf("arguments assembled %q, want %q", args.String(), fake.ToolArguments)
	}
}

func TestToolCallStreamFaults(t *testing.T) {
	_, url := start(t, fake.Options{ReplyTokens: 8})
	stop := (&fake.Script{Fault: fake.FaultMidstreamError, Tokens: fake.ToolCallTokens}).StreamStop()
	t.Run("midstream-error", func(t *testing.T) {
		_, raw, err := toolStream(t, url, "fake/fault-midstream-error", false)
		if err != nil || len(raw) != 1+stop+1 || !strings.HasPrefix(raw[len(raw)-1], `{"error":`) {
			t.Errorf("events %q, err %v; want the call, %d fragments and an error", raw, err, stop)
		}
	})
	t.Run("cut", func(t *testing.T) {
		_, raw, err := toolStream(t, url, "fake/fault-cut", false)
		if err == nil || len(raw) != 1+stop {
			t.Errorf("events %q, err %v; want the call, %d fragments and a dropped connection", raw, err, stop)
		}
	})
}
