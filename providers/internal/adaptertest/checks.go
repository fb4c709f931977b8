package adaptertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// ChatAndStream and ChatOnly are the modes a fault table runs in: each
// stream value once (false: Chat, true: ChatStream).
var (
	ChatAndStream = []bool{false, true}
	ChatOnly      = []bool{false}
)

// Fault is a failure the fake makes before any event, and the *Error the
// adapter must map it to.
type Fault struct {
	Fault      string // the fake's fault, the model's "fault-<Fault>"
	Status     int
	Code       string
	Upstream   bool // the error's UpstreamFault
	RetryAfter time.Duration
	Msg        string // the message mentions it
}

// Faults runs a subtest for each fault and mode, named after the fault (with
// "/stream" for ChatStream): call makes the call for the fault and returns
// the error it ended with, which must be the fault's *Error, with its
// RetryAfter, and whose message mentions Msg. more, when not nil, checks the
// error further.
func Faults(t *testing.T, faults []Fault, modes []bool, call func(t *testing.T, fault string, stream bool) error, more func(t *testing.T, f Fault, e *shlyuz.Error)) {
	t.Helper()
	for _, tc := range faults {
		for _, stream := range modes {
			name := tc.Fault
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				e := AsError(t, call(t, tc.Fault, stream), tc.Status, tc.Code, tc.Upstream)
				if e.RetryAfter != tc.RetryAfter {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tc.RetryAfter)
				}
				if !strings.Contains(e.Message, tc.Msg) {
					t.Errorf("message %q does not mention %q", e.Message, tc.Msg)
				}
				if more != nil {
					more(t, tc, e)
				}
			})
		}
	}
}

// BrokenReplies are the fake's non-streamed replies that are not JSON, break
// off, or carry an error half way: the upstream's fault.
var BrokenReplies = []Fault{
	{Fault: "malformed", Status: 502, Code: "upstream_error", Upstream: true, Msg: "malformed"},
	{Fault: "cut", Status: 502, Code: "upstream_error", Upstream: true, Msg: "broke off"},
	{Fault: "midstream-error", Status: 502, Code: "upstream_error", Upstream: true},
}

// CallError makes req's call, Chat or (req.Stream) ChatStream, and returns
// its error: a call that must fail before the stream starts, so a stream
// that opens fails the test.
func CallError(t *testing.T, p shlyuz.Provider, req *shlyuz.UpstreamRequest) error {
	t.Helper()
	if !req.Stream {
		_, err := p.Chat(context.Background(), req)
		return err
	}
	st, err := p.ChatStream(context.Background(), req)
	if err == nil {
		st.Close()
		t.Fatal("ChatStream succeeded")
	}
	return err
}

// StreamFault is a failure the fake makes after the stream started.
type StreamFault struct {
	Fault  string
	Status int    // 0: 502
	Code   string // "": upstream_error
	Msg    string // the message mentions it
}

// StreamFaults runs a subtest for each fault: open starts the stream for it,
// which must carry events worth tokens completion tokens, then end with the
// fault's *Error (the upstream's fault) and keep returning that same error.
// more, when not nil, checks the events before the failure further.
func StreamFaults(t *testing.T, faults []StreamFault, tokens int64, open func(t *testing.T, fault string) (shlyuz.ChatStream, error), more func(t *testing.T, events []shlyuz.StreamEvent)) {
	t.Helper()
	for _, tc := range faults {
		t.Run(tc.Fault, func(t *testing.T) {
			status, code := tc.Status, tc.Code
			if status == 0 {
				status, code = 502, "upstream_error"
			}
			st, err := open(t, tc.Fault)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			events, err := ReadAll(st)
			e := AsError(t, err, status, code, true)
			if !strings.Contains(e.Message, tc.Msg) {
				t.Errorf("message %q does not mention %q", e.Message, tc.Msg)
			}
			if got := Tokens(events); got != tokens {
				t.Errorf("%d tokens before the failure, want %d", got, tokens)
			}
			if more != nil {
				more(t, events)
			}
			if _, err2 := st.Next(); err2 != err {
				t.Errorf("Next after the failure = %v, want the same error", err2)
			}
		})
	}
}

// ReadToEnd drains a stream that must end with io.EOF.
func ReadToEnd(t *testing.T, st shlyuz.ChatStream) []shlyuz.StreamEvent {
	t.Helper()
	events, err := ReadAll(st)
	if err != io.EOF {
		t.Fatalf("stream ended with %v after %d events, want io.EOF", err, len(events))
	}
	return events
}

// Tokens adds up the events' completion tokens.
func Tokens(events []shlyuz.StreamEvent) int64 {
	var n int64
	for _, ev := range events {
		n += ev.CompletionTokens
	}
	return n
}

// Streamed is what a stream's events said, put together.
type Streamed struct {
	Events  []shlyuz.StreamEvent
	Content string        // the text of every choice's deltas
	Finish  string        // the last finish reason
	Usage   *shlyuz.Usage // the last usage
	Tokens  int64         // the completion tokens, added up

	// The tool call: the id and name of the last delta that has an id, the
	// arguments of all deltas, and the deltas themselves.
	ToolID, ToolName, Args string
	ToolDeltas             []ToolCall
}

// Collect puts events together. Each event's data must be a chunk; check,
// when not nil, sees every event with its index and its chunk, nil when the
// event has no data.
func Collect(t *testing.T, events []shlyuz.StreamEvent, check func(i int, ev shlyuz.StreamEvent, c *Chunk)) Streamed {
	t.Helper()
	s := Streamed{Events: events}
	var content, args strings.Builder
	for i, ev := range events {
		s.Tokens += ev.CompletionTokens
		if ev.FinishReason != "" {
			s.Finish = ev.FinishReason
		}
		if ev.Usage != nil {
			s.Usage = ev.Usage
		}
		if ev.Data == nil {
			if check != nil {
				check(i, ev, nil)
			}
			continue
		}
		var c Chunk
		if err := json.Unmarshal(ev.Data, &c); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, ev.Data)
		}
		if check != nil {
			check(i, ev, &c)
		}
		for _, ch := range c.Choices {
			content.WriteString(ch.Delta.Text())
			for _, tc := range ch.Delta.ToolCalls {
				if tc.ID != "" {
					s.ToolID, s.ToolName = tc.ID, tc.Function.Name
				}
				args.WriteString(tc.Function.Arguments)
				s.ToolDeltas = append(s.ToolDeltas, tc)
			}
		}
	}
	s.Content, s.Args = content.String(), args.String()
	return s
}

// StreamCase is a streamed call to the fake and what its stream must say.
type StreamCase struct {
	Name      string
	Body      string // the client's body
	MaxTokens int64  // the gateway's ceiling, 0 for none
	Content   string
	Finish    string
	Usage     shlyuz.Usage
}

// ClientAsked tells whether the case's client asked for usage.
func (c StreamCase) ClientAsked() bool {
	return strings.Contains(c.Body, `"include_usage":true`)
}

// Cases every adapter's stream passes against the fake's eight words.
var (
	// UsageAsked: the client asks for usage.
	UsageAsked = StreamCase{
		Name:    "client asked usage",
		Body:    `{"messages":[{"role":"user","content":"Hello there, how are you?"}],"stream":true,"stream_options":{"include_usage":true},"seed":7}`,
		Content: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
		Finish:  "stop",
		Usage:   shlyuz.Usage{PromptTokens: 6, CompletionTokens: 8, TotalTokens: 14},
	}
	// Capped: the gateway's max_tokens cuts the reply.
	Capped = StreamCase{
		Name:      "max_tokens caps the reply",
		Body:      HelloBody,
		MaxTokens: 3,
		Content:   "tok0 tok1 tok2",
		Finish:    "length",
		Usage:     shlyuz.Usage{PromptTokens: 6, CompletionTokens: 3, TotalTokens: 9},
	}
)

// Check drains st to its io.EOF, collecting the events with check, compares
// what they said with the case, and checks the stream then keeps answering
// io.EOF.
func (c StreamCase) Check(t *testing.T, st shlyuz.ChatStream, check func(i int, ev shlyuz.StreamEvent, ch *Chunk)) Streamed {
	t.Helper()
	s := Collect(t, ReadToEnd(t, st), check)
	if s.Content != c.Content {
		t.Errorf("content = %q, want %q", s.Content, c.Content)
	}
	if s.Finish != c.Finish {
		t.Errorf("finish = %q, want %q", s.Finish, c.Finish)
	}
	if s.Usage == nil || *s.Usage != c.Usage {
		t.Errorf("usage = %+v, want %+v", s.Usage, c.Usage)
	}
	if s.Tokens != c.Usage.CompletionTokens {
		t.Errorf("counted tokens = %d, want %d", s.Tokens, c.Usage.CompletionTokens)
	}
	if _, err := st.Next(); err != io.EOF {
		t.Errorf("Next after the end = %v, want io.EOF again", err)
	}
	return s
}

// CheckChunk checks a chunk's envelope: our generation id, the public model
// (a prefix of it when model ends with "/"), the chunk object, and a usage
// member exactly when the client asked for usage.
func CheckChunk(t *testing.T, i int, c *Chunk, model string, clientAsked bool) {
	t.Helper()
	modelOK := c.Model == model || (strings.HasSuffix(model, "/") && strings.HasPrefix(c.Model, model))
	if c.ID != "gen-abc" || !modelOK || c.Object != "chat.completion.chunk" {
		t.Errorf("event %d: id %q model %q object %q", i, c.ID, c.Model, c.Object)
	}
	if clientAsked != (c.Usage != nil) {
		t.Errorf("event %d: usage member %s, client asked %v", i, c.Usage, clientAsked)
	}
}

// NoUsage checks that no event reported usage and that the events'
// completion tokens add up to tokens.
func NoUsage(t *testing.T, events []shlyuz.StreamEvent, tokens int64) {
	t.Helper()
	for _, ev := range events {
		if ev.Usage != nil {
			t.Errorf("usage reported: %+v", ev.Usage)
		}
	}
	if got := Tokens(events); got != tokens {
		t.Errorf("counted %d tokens, want %d", got, tokens)
	}
}

// NotLeaked checks that neither the error's message, its text nor its cause
// contains any of parts.
func NotLeaked(t *testing.T, e *shlyuz.Error, parts ...string) {
	t.Helper()
	cause := ""
	if e.Cause != nil {
		cause = e.Cause.Error()
	}
	for _, part := range parts {
		if strings.Contains(e.Message, part) || strings.Contains(e.Error(), part) || strings.Contains(cause, part) {
			t.Errorf("error %q (cause %q) leaks %q", e.Message, cause, part)
		}
	}
}

// CheckSent checks members of a body sent upstream: each of want with those
// very bytes, none of absent.
func CheckSent(t *testing.T, sent map[string]json.RawMessage, want map[string]string, absent ...string) {
	t.Helper()
	for field, w := range want {
		if got := string(sent[field]); got != w {
			t.Errorf("sent %s = %s, want %s", field, got, w)
		}
	}
	for _, field := range absent {
		if v, ok := sent[field]; ok {
			t.Errorf("sent %s upstream: %s", field, v)
		}
	}
}

// JSONString is s as a JSON string.
func JSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FollowUp is a client's body after a get_weather tool call: the question,
// the assistant's call (id, arguments) as the client echoes it, the tool's
// result, then tools, the body's "tools" member (and more members) as JSON.
func FollowUp(question, id, args, result, tools string) string {
	return fmt.Sprintf(`{"messages":[{"role":"user","content":%s},`+
		`{"role":"assistant","content":null,"tool_calls":[{"id":%s,"type":"function","function":{"name":"get_weather","arguments":%s}}]},`+
		`{"role":"tool","tool_call_id":%s,"content":%s}],%s}`,
		JSONString(question), JSONString(id), JSONString(args), JSONString(id), JSONString(result), tools)
}
