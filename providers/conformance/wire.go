package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The client requests of the suite.
const (
	helloBody  = `{"model":"x","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello there"}]}`
	pngDataURL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	visionBody = `{"model":"x","messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"` + pngDataURL + `"}}]}]}`
	toolsJSON  = `[{"type":"function","function":{"name":"get_weather","description":"Weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`
	toolsMsgs  = `{"role":"system","content":"Be brief."},{"role":"user","content":"What is the weather in Moscow?"}`
	toolsBody  = `{"model":"x","messages":[` + toolsMsgs + `],"tools":` + toolsJSON + `}`
	// withUsage is a stream request whose client asked for usage itself.
	withUsage = `{"model":"x","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello there"}],"stream":true,"stream_options":{"include_usage":true}}`
)

// followUpBody is the tools conversation continued with the assistant's call
// of get_weather (id callID) and the tool's result.
func followUpBody(callID string) string {
	id, _ := json.Marshal(callID)
	return `{"model":"x","messages":[` + toolsMsgs +
		`,{"role":"assistant","content":null,"tool_calls":[{"id":` + string(id) +
		`,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Moscow\"}"}}]}` +
		`,{"role":"tool","tool_call_id":` + string(id) + `,"content":"{\"temp\":-3}"}` +
		`],"tools":` + toolsJSON + `}`
}

// text is the fake's reply of n words: "tok0 tok1 …".
func text(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "tok%d", i)
	}
	return b.String()
}

// request is the gateway's request for a client body.
func request(t *testing.T, body, upstreamModel string, stream bool, maxTokens int64) *shlyuz.UpstreamRequest {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &fields); err != nil {
		t.Fatalf("conformance: client body %s: %v", body, err)
	}
	if stream {
		if _, ok := fields["stream"]; !ok {
			fields["stream"] = json.RawMessage("true")
		}
	}
	return &shlyuz.UpstreamRequest{
		GenerationID:  GenerationID,
		Model:         Model,
		UpstreamModel: upstreamModel,
		Fields:        fields,
		MaxTokens:     maxTokens,
		Stream:        stream,
	}
}

// toolCall is one call of a reply, assembled.
type toolCall struct {
	ID, Type, Name, Arguments string
}

// reply is a completion in neutral terms, from Chat or assembled from a stream.
type reply struct {
	role      string
	text      string
	toolCalls []toolCall
	// wireFinish are the finish_reason values the client sees in the choices
	// (one for Chat, every chunk's for a stream); finish is ChatResponse's or
	// StreamEvent's FinishReason (every non-empty one for a stream).
	wireFinish []string
	finish     []string
	usage      *shlyuz.Usage
	created    int64 // Chat only
	events     int   // stream only
	problems   []string
}

func (r *reply) problem(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// report fails the test with the reply's problems, the first few of them in full.
func (r *reply) report(t *testing.T) {
	t.Helper()
	const shown = 4
	for i, p := range r.problems {
		if i == shown {
			t.Errorf("… and %d more problems", len(r.problems)-shown)
			break
		}
		t.Error(p)
	}
}

type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type wireMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []wireToolCall  `json:"tool_calls"`
}

type wireChoice struct {
	Index        *int            `json:"index"`
	Message      *wireMessage    `json:"message"`
	Delta        *wireMessage    `json:"delta"`
	FinishReason json.RawMessage `json:"finish_reason"`
}

// stringOrNull decodes a JSON string or null (or nothing) as text.
func stringOrNull(v json.RawMessage) (string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// chat calls Chat and reads its reply.
func chat(ctx context.Context, p shlyuz.Provider, req *shlyuz.UpstreamRequest) (*reply, error) {
	resp, err := p.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, errors.New("Chat returned a nil response and no error")
	}
	r := &reply{created: resp.Created, usage: &resp.Usage}
	if resp.FinishReason != "" {
		r.finish = []string{resp.FinishReason}
	}
	var choices []wireChoice
	if err := json.Unmarshal(resp.Choices, &choices); err != nil {
		r.problem("ChatResponse.Choices is not an OpenAI choices array: %v: %s", err, resp.Choices)
		return r, nil
	}
	if len(choices) != 1 {
		r.problem("ChatResponse.Choices has %d choices, want 1: %s", len(choices), resp.Choices)
		if len(choices) == 0 {
			return r, nil
		}
	}
	c := choices[0]
	if c.Index == nil || *c.Index != 0 {
		r.problem("choices[0].index is not 0: %s", resp.Choices)
	}
	if f, ok := stringOrNull(c.FinishReason); !ok || f == "" {
		r.problem("choices[0].finish_reason is not a string: %s", resp.Choices)
	} else {
		r.wireFinish = []string{f}
	}
	if c.Message == nil {
		r.problem("choices[0] has no message: %s", resp.Choices)
		return r, nil
	}
	r.role = c.Message.Role
	txt, ok := stringOrNull(c.Message.Content)
	if !ok {
		r.problem("choices[0].message.content is neither a string nor null: %s", c.Message.Content)
	}
	r.text = txt
	for i, tc := range c.Message.ToolCalls {
		if tc.Function == nil {
			r.problem("message.tool_calls[%d] has no function: %s", i, resp.Choices)
			continue
		}
		args, ok := argumentsString(tc.Function.Arguments)
		if !ok {
			r.problem("message.tool_calls[%d].function.arguments is not a JSON string: %s", i, tc.Function.Arguments)
		}
		r.toolCalls = append(r.toolCalls, toolCall{ID: tc.ID, Type: tc.Type, Name: tc.Function.Name, Arguments: args})
	}
	return r, nil
}

// argumentsString decodes tool call arguments, which OpenAI sends as a JSON string.
func argumentsString(v json.RawMessage) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

// stream opens a stream and drains it to its end. The error is ChatStream's
// or the first non-EOF error of Next; the reply holds what came before it.
func stream(ctx context.Context, p shlyuz.Provider, req *shlyuz.UpstreamRequest) (*reply, error) {
	st, err := p.ChatStream(ctx, req)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errors.New("ChatStream returned a nil stream and no error")
	}
	defer st.Close()
	a := newAssembler()
	for {
		ev, err := st.Next()
		if err == io.EOF {
			return a.done(), nil
		}
		if err != nil {
			return a.done(), err
		}
		a.add(ev)
	}
}

// assembler builds a reply from stream events, checking every chunk.
type assembler struct {
	r     *reply
	text  strings.Builder
	calls map[int]*toolCall
	order []int
}

func newAssembler() *assembler {
	return &assembler{r: &reply{}, calls: map[int]*toolCall{}}
}

func (a *assembler) done() *reply {
	a.r.text = a.text.String()
	for _, i := range a.order {
		a.r.toolCalls = append(a.r.toolCalls, *a.calls[i])
	}
	return a.r
}

// add takes one event; it returns the text the event carried.
func (a *assembler) add(ev shlyuz.StreamEvent) string {
	r := a.r
	n := r.events
	r.events++
	if ev.Usage != nil {
		u := *ev.Usage
		r.usage = &u
	}
	if ev.FinishReason != "" {
		r.finish = append(r.finish, ev.FinishReason)
	}
	if ev.Data == nil {
		if ev.Usage == nil && ev.FinishReason == "" {
			r.problem("event %d carries nothing: no Data, no Usage, no FinishReason", n)
		}
		return ""
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(ev.Data, &top); err != nil {
		r.problem("event %d: Data is not a JSON object: %v: %s", n, err, ev.Data)
		return ""
	}
	if got := string(top["object"]); got != `"chat.completion.chunk"` {
		r.problem(`event %d: object = %s, want "chat.completion.chunk": %s`, n, orAbsent(got), ev.Data)
	}
	if got := string(top["id"]); got != `"`+GenerationID+`"` {
		r.problem("event %d: id = %s, want %q: %s", n, orAbsent(got), GenerationID, ev.Data)
	}
	if got := string(top["model"]); got != `"`+Model+`"` {
		r.problem("event %d: model = %s, want %q: %s", n, orAbsent(got), Model, ev.Data)
	}
	var created float64
	if err := json.Unmarshal(top["created"], &created); err != nil || bytes.Equal(top["created"], []byte("null")) {
		r.problem("event %d: created = %s, want unix seconds (OpenAI's SDKs require it): %s", n, orAbsent(string(top["created"])), ev.Data)
	}
	if u, ok := top["usage"]; ok && string(u) != "null" {
		r.problem("event %d: the chunk carries usage %s: the gateway writes the usage chunk itself (StreamEvent.Usage is the way to report it)", n, u)
	}
	var choices []wireChoice
	if err := json.Unmarshal(top["choices"], &choices); err != nil || len(top["choices"]) == 0 || top["choices"][0] != '[' {
		r.problem("event %d: choices is not an array: %s", n, ev.Data)
		return ""
	}
	if len(choices) > 1 {
		r.problem("event %d: %d choices, want at most 1: %s", n, len(choices), ev.Data)
	}
	if len(choices) == 0 {
		return ""
	}
	c := choices[0]
	if c.Index == nil || *c.Index != 0 {
		r.problem("event %d: choices[0].index is not 0: %s", n, ev.Data)
	}
	finish, ok := stringOrNull(c.FinishReason)
	if !ok {
		r.problem("event %d: choices[0].finish_reason is neither a string nor null: %s", n, ev.Data)
	}
	if finish != "" {
		r.wireFinish = append(r.wireFinish, finish)
		if ev.FinishReason != finish {
			r.problem("event %d: StreamEvent.FinishReason = %q, but its chunk says %q", n, ev.FinishReason, finish)
		}
	}
	if c.Delta == nil {
		r.problem("event %d: choices[0] has no delta: %s", n, ev.Data)
		return ""
	}
	d := c.Delta
	if d.Role != "" {
		if r.role != "" && r.role != d.Role {
			r.problem("event %d: delta.role %q after %q", n, d.Role, r.role)
		}
		r.role = d.Role
	}
	content, ok := stringOrNull(d.Content)
	if !ok {
		r.problem("event %d: delta.content is neither a string nor null: %s", n, ev.Data)
	}
	a.text.WriteString(content)
	if content != "" && ev.CompletionTokens <= 0 {
		r.problem("event %d carries text %q but CompletionTokens = %d: a cut stream could not be billed", n, content, ev.CompletionTokens)
	}
	for j, tc := range d.ToolCalls {
		if tc.Index == nil {
			r.problem("event %d: delta.tool_calls[%d] has no index (OpenAI requires it on every fragment): %s", n, j, ev.Data)
			continue
		}
		call := a.calls[*tc.Index]
		if call == nil {
			call = &toolCall{}
			a.calls[*tc.Index] = call
			a.order = append(a.order, *tc.Index)
		}
		if tc.ID != "" {
			if call.ID != "" && call.ID != tc.ID {
				r.problem("event %d: tool call %d changes its id from %q to %q", n, *tc.Index, call.ID, tc.ID)
			}
			call.ID = tc.ID
		}
		if tc.Type != "" {
			call.Type = tc.Type
		}
		if tc.Function == nil {
			continue
		}
		if tc.Function.Name != "" {
			if call.Name != "" && call.Name != tc.Function.Name {
				r.problem("event %d: tool call %d changes its name from %q to %q", n, *tc.Index, call.Name, tc.Function.Name)
			}
			call.Name = tc.Function.Name
		}
		if len(tc.Function.Arguments) > 0 && string(tc.Function.Arguments) != "null" {
			frag, ok := argumentsString(tc.Function.Arguments)
			if !ok {
				r.problem("event %d: tool call %d arguments fragment is not a JSON string: %s", n, *tc.Index, tc.Function.Arguments)
			}
			call.Arguments += frag
		}
	}
	return content
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}
