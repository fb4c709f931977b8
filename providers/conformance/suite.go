package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// caller is Chat or a drained stream.
type caller struct {
	name   string
	stream bool
	call   func(context.Context, shlyuz.Provider, *shlyuz.UpstreamRequest) (*reply, error)
}

var callers = []caller{{"chat", false, chat}, {"stream", true, stream}}

// wantText is what a text reply must be.
type wantText struct {
	words     int
	finish    string
	minPrompt int64
}

func (w wantText) check(t *testing.T, r *reply) {
	t.Helper()
	r.report(t)
	if r.role != "assistant" {
		t.Errorf("role = %q, want \"assistant\"", r.role)
	}
	if want := text(w.words); r.text != want {
		t.Errorf("text = %q, want %q", r.text, want)
	}
	if len(r.toolCalls) != 0 {
		t.Errorf("tool calls %+v, want none", r.toolCalls)
	}
	checkFinish(t, r, w.finish)
	checkUsage(t, r, w.minPrompt, int64(w.words))
}

func checkFinish(t *testing.T, r *reply, want string) {
	t.Helper()
	if len(r.wireFinish) == 0 {
		t.Errorf("no finish_reason in the choices the client sees, want %q", want)
	}
	for _, f := range r.wireFinish {
		if f != want {
			t.Errorf("choices finish_reason %q, want %q (all seen: %q)", f, want, r.wireFinish)
			break
		}
	}
	if len(r.finish) == 0 {
		t.Errorf("FinishReason not reported (ChatResponse/StreamEvent), want %q", want)
	}
	for _, f := range r.finish {
		if f != want {
			t.Errorf("FinishReason %q, want %q (all reported: %q)", f, want, r.finish)
			break
		}
	}
}

func checkUsage(t *testing.T, r *reply, minPrompt, completion int64) {
	t.Helper()
	if r.usage == nil {
		t.Errorf("no usage reported, want %d completion tokens", completion)
		return
	}
	u := *r.usage
	if u.PromptTokens < minPrompt {
		t.Errorf("usage %+v: PromptTokens %d, want ≥ %d", u, u.PromptTokens, minPrompt)
	}
	if u.CompletionTokens != completion {
		t.Errorf("usage %+v: CompletionTokens %d, want %d", u, u.CompletionTokens, completion)
	}
	if u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage %+v: TotalTokens %d, want prompt + completion = %d", u, u.TotalTokens, u.PromptTokens+u.CompletionTokens)
	}
}

// describe renders an error with what the suite checks of it.
func describe(err error) string {
	var e *shlyuz.Error
	if errors.As(err, &e) {
		return fmt.Sprintf("*shlyuz.Error{Status: %d, Type: %q, Code: %q, UpstreamFault: %v, RetryAfter: %v, Message: %q}",
			e.Status, e.Type, e.Code, e.UpstreamFault, e.RetryAfter, e.Message)
	}
	return fmt.Sprintf("%v (%T, not a *shlyuz.Error)", err, err)
}

func (e *env) testText(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    string
		max     int64
		want    wantText
		refuse  string
		streams map[string]string // stream variants: name → client body
	}{
		{
			name: "plain", body: helloBody, want: wantText{ReplyTokens, "stop", 1},
			streams: map[string]string{"stream": helloBody, "stream_client_usage": withUsage},
		},
		{name: "max_tokens", body: helloBody, max: 3, want: wantText{3, "length", 1}},
		{name: "vision", body: visionBody, want: wantText{ReplyTokens, "stop", 85}, refuse: e.tg.NoVision},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.refuse != "" {
				e.testRefused(t, tc.body, tc.refuse)
				return
			}
			var ref *reply
			t.Run("chat", func(t *testing.T) {
				r, err := chat(opContext(t), e.p, request(t, tc.body, UpstreamModel, false, tc.max))
				if err != nil {
					t.Fatalf("Chat: %s", describe(err))
				}
				tc.want.check(t, r)
				if r.created <= 0 {
					t.Errorf("ChatResponse.Created = %d, want unix seconds", r.created)
				}
				if !t.Failed() {
					ref = r
				}
			})
			streams := tc.streams
			if streams == nil {
				streams = map[string]string{"stream": tc.body}
			}
			for _, name := range []string{"stream", "stream_client_usage"} {
				body, ok := streams[name]
				if !ok {
					continue
				}
				t.Run(name, func(t *testing.T) {
					r, err := stream(opContext(t), e.p, request(t, body, UpstreamModel, true, tc.max))
					if err != nil {
						t.Fatalf("stream: %s", describe(err))
					}
					tc.want.check(t, r)
					if ref != nil && r.usage != nil && r.usage.PromptTokens != ref.usage.PromptTokens {
						t.Errorf("streamed PromptTokens %d, Chat reported %d for the same request", r.usage.PromptTokens, ref.usage.PromptTokens)
					}
				})
			}
		})
	}
}

// testRefused checks that a request the protocol cannot carry is refused
// clearly, by Chat and ChatStream, before it reaches the upstream.
func (e *env) testRefused(t *testing.T, body, reason string) {
	t.Logf("%s refuses this request: %s", e.tg.Name, reason)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			before := e.requests.count()
			var err error
			if c.stream {
				err = openErr(opContext(t), e.p, request(t, body, UpstreamModel, true, 0))
			} else {
				_, err = e.p.Chat(opContext(t), request(t, body, UpstreamModel, false, 0))
			}
			if err == nil {
				t.Fatalf("the request was not refused (the protocol cannot carry it: %s)", reason)
			}
			var se *shlyuz.Error
			if !errors.As(err, &se) || se.Status != 400 || se.Code != "invalid_value" ||
				se.Type != shlyuz.TypeInvalidRequest || se.UpstreamFault || strings.TrimSpace(se.Message) == "" {
				t.Errorf("refusal = %s, want a 400 invalid_request_error/invalid_value with a message and no UpstreamFault", describe(err))
			}
			if n := e.requests.count(); n != before {
				t.Errorf("the refused request reached the upstream (%d requests)", n-before)
			}
		})
	}
}

// errStreamStarted is openErr's answer when the stream delivered an event.
var errStreamStarted = errors.New("the stream delivered an event")

// openErr opens a stream that should fail before its first byte: the error
// comes from ChatStream or from the first Next.
func openErr(ctx context.Context, p shlyuz.Provider, req *shlyuz.UpstreamRequest) error {
	st, err := p.ChatStream(ctx, req)
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = st.Next()
	switch err {
	case nil:
		return errStreamStarted
	case io.EOF:
		return errors.New("the stream ended (io.EOF) without an error")
	}
	return err
}

func (e *env) testTools(t *testing.T) {
	if e.tg.NoTools != "" {
		e.testRefused(t, toolsBody, e.tg.NoTools)
		return
	}
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			r, err := c.call(opContext(t), e.p, request(t, toolsBody, UpstreamModel, c.stream, 0))
			if err != nil {
				t.Fatalf("%s with tools: %s", c.name, describe(err))
			}
			id := checkToolCall(t, r)
			if id == "" {
				return
			}
			t.Run("follow_up", func(t *testing.T) {
				r, err := c.call(opContext(t), e.p, request(t, followUpBody(id), UpstreamModel, c.stream, 0))
				if err != nil {
					t.Fatalf("%s with the tool's result: %s", c.name, describe(err))
				}
				wantText{ReplyTokens, "stop", 1}.check(t, r)
			})
		})
	}
}

// checkToolCall checks a reply that calls get_weather and returns the call's id.
func checkToolCall(t *testing.T, r *reply) string {
	t.Helper()
	r.report(t)
	if r.role != "assistant" {
		t.Errorf("role = %q, want \"assistant\"", r.role)
	}
	if r.text != "" {
		t.Errorf("text %q next to the tool call, want none", r.text)
	}
	checkFinish(t, r, "tool_calls")
	checkUsage(t, r, 1, fake.ToolCallTokens)
	if len(r.toolCalls) != 1 {
		t.Errorf("%d tool calls %+v, want 1", len(r.toolCalls), r.toolCalls)
		return ""
	}
	tc := r.toolCalls[0]
	if tc.ID == "" {
		t.Errorf("tool call %+v has no id", tc)
	}
	if tc.Type != "function" || tc.Name != "get_weather" {
		t.Errorf("tool call %+v: type %q name %q, want \"function\" \"get_weather\"", tc, tc.Type, tc.Name)
	}
	var args, want map[string]any
	_ = json.Unmarshal([]byte(fake.ToolArguments), &want)
	if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil || !reflect.DeepEqual(args, want) {
		t.Errorf("tool call arguments %q, want the JSON object %s", tc.Arguments, fake.ToolArguments)
	}
	return tc.ID
}

func (e *env) testErrorsBeforeFirstByte(t *testing.T) {
	isFault := func(se *shlyuz.Error) string {
		if !se.UpstreamFault {
			return "UpstreamFault false: the breaker would not count it and no fallback would be tried"
		}
		return ""
	}
	serverSide := func(se *shlyuz.Error) string {
		if msg := isFault(se); msg != "" {
			return msg
		}
		if se.Status < 500 {
			return fmt.Sprintf("status %d, want ≥ 500: the client did nothing wrong", se.Status)
		}
		return ""
	}
	for _, tc := range []struct {
		fault    string
		chatOnly bool // the fault happens after the first byte of a stream
		check    func(*shlyuz.Error) string
	}{
		{"500", false, func(se *shlyuz.Error) string {
			if se.Status != 502 {
				return fmt.Sprintf("status %d, want 502", se.Status)
			}
			return isFault(se)
		}},
		{"503", false, serverSide},
		{"429", false, func(se *shlyuz.Error) string {
			if se.Status != 429 {
				return fmt.Sprintf("status %d, want 429", se.Status)
			}
			if se.RetryAfter <= 0 {
				return fmt.Sprintf("RetryAfter %v, want the upstream's wait (> 0)", se.RetryAfter)
			}
			return isFault(se)
		}},
		{"quota", false, func(se *shlyuz.Error) string {
			if se.Status != 429 && se.Status < 500 {
				return fmt.Sprintf("status %d, want 429 or ≥ 500: an exhausted upstream quota is no client error", se.Status)
			}
			return isFault(se)
		}},
		{"401", false, serverSide}, // the upstream refused the gateway's credentials, not the client's
		{"400", false, func(se *shlyuz.Error) string {
			if se.Status != 400 {
				return fmt.Sprintf("status %d, want 400", se.Status)
			}
			if se.UpstreamFault {
				return "UpstreamFault true: a request the upstream rejects as invalid must not count against it"
			}
			return ""
		}},
		{"malformed", true, serverSide},
		{"cut", true, serverSide},
	} {
		for _, c := range callers {
			if c.stream && tc.chatOnly {
				continue
			}
			t.Run(tc.fault+"/"+c.name, func(t *testing.T) {
				req := request(t, helloBody, "fault-"+tc.fault, c.stream, 0)
				var err error
				if c.stream {
					err = openErr(opContext(t), e.p, req)
				} else {
					_, err = e.p.Chat(opContext(t), req)
				}
				if err == nil {
					t.Fatalf("no error from an upstream answering fault %q", tc.fault)
				}
				var se *shlyuz.Error
				if !errors.As(err, &se) {
					t.Fatalf("error %s, want a *shlyuz.Error", describe(err))
				}
				if msg := tc.check(se); msg != "" {
					t.Errorf("%s: %s", describe(err), msg)
				}
			})
		}
	}
	for _, c := range callers {
		t.Run("hang/"+c.name, func(t *testing.T) {
			e.warm(t)
			n := e.requests.count()
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			defer cancel()
			req := request(t, helloBody, "fault-"+fake.FaultHang, c.stream, 0)
			done := make(chan error, 1)
			go func() {
				if c.stream {
					done <- openErr(ctx, e.p, req)
				} else {
					_, err := e.p.Chat(ctx, req)
					done <- err
				}
			}()
			select {
			case err := <-done:
				var se *shlyuz.Error
				if err == nil {
					t.Fatal("no error from an upstream that never answered")
				}
				if !errors.Is(err, context.DeadlineExceeded) && !(errors.As(err, &se) && se.Status == 504) {
					t.Errorf("error %s, want a timeout: a 504 *shlyuz.Error or context.DeadlineExceeded", describe(err))
				}
			case <-time.After(deadline + prompt):
				t.Fatalf("still waiting %v after a %v deadline on an upstream that never answers", prompt, deadline)
			}
			e.released(t, n, fake.FaultHang, "after the deadline")
		})
	}
}

// warm makes a plain call, which leaves a kept-alive connection to the fake
// in the adapter's pool: a call timed against the short deadline then goes
// out at once instead of spending the deadline on a dial and a TLS handshake,
// which a loaded machine stretches past 300ms (the fault cut, and a call
// cancelled at its deadline, close the connection they had).
func (e *env) warm(t *testing.T) {
	t.Helper()
	if _, err := e.p.Chat(opContext(t), request(t, helloBody, UpstreamModel, false, 0)); err != nil {
		t.Fatalf("a plain call before the deadline's: %s", describe(err))
	}
}

func (e *env) testErrorsAfterFirstByte(t *testing.T) {
	full := text(ReplyTokens)
	for _, fault := range []string{fake.FaultMidstreamError, fake.FaultMalformed, fake.FaultCut} {
		t.Run(fault, func(t *testing.T) {
			r, err := stream(opContext(t), e.p, request(t, helloBody, "fault-"+fault, true, 0))
			if r == nil {
				t.Fatalf("ChatStream failed before the first byte: %s; the upstream failed only after some words", describe(err))
			}
			r.report(t)
			if r.events == 0 || r.text == "" {
				t.Errorf("%d events, text %q before the error: the words the upstream sent before failing were not delivered", r.events, r.text)
			}
			if !strings.HasPrefix(full, r.text) {
				t.Errorf("text %q before the error is not the start of %q", r.text, full)
			}
			if err == nil {
				t.Fatal("the stream ended with io.EOF, want an error: the upstream failed half way")
			}
			var se *shlyuz.Error
			if !errors.As(err, &se) || !se.UpstreamFault {
				t.Errorf("Next = %s, want a *shlyuz.Error with UpstreamFault", describe(err))
			}
		})
	}
}

// step is one Next of a pumped stream.
type step struct {
	ev  shlyuz.StreamEvent
	err error
}

// pump calls Next on its own goroutine until an error, sending every result.
func pump(st shlyuz.ChatStream, stop <-chan struct{}) <-chan step {
	ch := make(chan step)
	go func() {
		defer close(ch)
		for {
			ev, err := st.Next()
			select {
			case ch <- step{ev, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// stalled opens a stream that stalls and waits until every word the upstream
// sent before stalling was delivered, so that the next Next blocks. It returns
// the stream, its pumped results and the index of its upstream request.
func (e *env) stalled(t *testing.T, ctx context.Context) (shlyuz.ChatStream, <-chan step, int) {
	t.Helper()
	n := e.requests.count()
	st, err := e.p.ChatStream(ctx, request(t, helloBody, "fault-"+fake.FaultStall, true, 0))
	if err != nil {
		t.Fatalf("ChatStream: %s", describe(err))
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); st.Close() })
	steps := pump(st, stop)
	want := text((&fake.Script{Fault: fake.FaultStall, Tokens: ReplyTokens}).StreamStop())
	a := newAssembler()
	timeout := time.NewTimer(2 * prompt)
	defer timeout.Stop()
	for a.text.String() != want {
		select {
		case s := <-steps:
			if s.err != nil {
				t.Fatalf("Next before the stall: %s", describe(s.err))
			}
			a.add(s.ev)
			if got := a.text.String(); !strings.HasPrefix(want, got) {
				t.Fatalf("text %q, want %q before the stall", got, want)
			}
		case <-timeout.C:
			t.Fatalf("after %v the stream delivered %q of the %q the upstream sent before it stalled", 2*prompt, a.text.String(), want)
		}
	}
	a.done().report(t)
	return st, steps, n
}

// endsPromptly waits for the pumped stream's error.
func endsPromptly(t *testing.T, steps <-chan step, after string) error {
	t.Helper()
	timeout := time.NewTimer(prompt)
	defer timeout.Stop()
	for {
		select {
		case s, ok := <-steps:
			if !ok {
				t.Fatal("the stream's pump ended without an error")
			}
			if s.err != nil {
				return s.err
			}
		case <-timeout.C:
			t.Fatalf("Next still blocked %v %s", prompt, after)
		}
	}
}

// checkGivenUp checks the error of a stream the caller gave up.
func checkGivenUp(t *testing.T, err error, after string) {
	t.Helper()
	if err == io.EOF {
		t.Errorf("Next %s = io.EOF, want an error: the stream did not end normally", after)
		return
	}
	var se *shlyuz.Error
	if !errors.Is(err, context.Canceled) && (!errors.As(err, &se) || se.UpstreamFault) {
		t.Errorf("Next %s = %s, want context.Canceled or an error without UpstreamFault: giving up is not the upstream's fault", after, describe(err))
	}
}

func (e *env) testCancellation(t *testing.T) {
	t.Run("context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(opContext(t))
		defer cancel()
		_, steps, n := e.stalled(t, ctx)
		cancel()
		err := endsPromptly(t, steps, "after the context was cancelled")
		checkGivenUp(t, err, "after the context was cancelled")
		e.released(t, n, fake.FaultStall, "after the context was cancelled")
	})
	t.Run("close", func(t *testing.T) {
		st, steps, n := e.stalled(t, opContext(t))
		closed := make(chan struct{}, 2)
		for range 2 { // Close from other goroutines, twice at once
			go func() { st.Close(); closed <- struct{}{} }()
		}
		err := endsPromptly(t, steps, "after Close")
		checkGivenUp(t, err, "after Close")
		for range 2 {
			select {
			case <-closed:
			case <-time.After(prompt):
				t.Fatalf("Close still blocked after %v", prompt)
			}
		}
		e.released(t, n, fake.FaultStall, "after Close")
		again := make(chan error, 1)
		go func() { _, err := st.Next(); again <- err }()
		select {
		case err := <-again:
			if err == nil {
				t.Error("Next after Close delivered an event")
			}
		case <-time.After(prompt):
			t.Fatalf("Next after Close blocked for %v", prompt)
		}
		if err := st.Close(); err != nil {
			t.Errorf("Close after Close = %v, want nil: Close is idempotent", err)
		}
	})
}
