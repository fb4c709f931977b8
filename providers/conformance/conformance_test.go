package conformance_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/conformance"
	"github.com/shlyuz/shlyuz/providers/openai"
)

// mutant is the OpenAI adapter with one defect the suite must catch.
type mutant struct {
	run  string // the subtests to run, a -test.run pattern below the target
	want string // a message the suite must print
	// target adjusts the Target (a wrong NoVision, …).
	target func(*conformance.Target)
	// The defects, each optional.
	req       func(*shlyuz.UpstreamRequest)
	chatOut   func(*shlyuz.ChatResponse, error) (*shlyuz.ChatResponse, error)
	chatCall  func(p shlyuz.Provider, ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error)
	streamCtx func(context.Context) context.Context
	streamErr func(error) error
	next      func(shlyuz.StreamEvent, error) (shlyuz.StreamEvent, error)
	closeNoop bool
}

// mapErr applies f to a copy of an *Error; other errors pass.
func mapErr(err error, f func(*shlyuz.Error)) error {
	var e *shlyuz.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	f(&c)
	return &c
}

var mutants = map[string]mutant{
	"foreign_id": {
		run: "text/plain/stream$", want: `id = "chatcmpl-x"`,
		next: func(ev shlyuz.StreamEvent, err error) (shlyuz.StreamEvent, error) {
			ev.Data = bytes.Replace(ev.Data, []byte(`"gen-test"`), []byte(`"chatcmpl-x"`), 1)
			return ev, err
		},
	},
	"usage_in_chunk": {
		run: "text/plain/stream$", want: "the chunk carries usage",
		next: func(ev shlyuz.StreamEvent, err error) (shlyuz.StreamEvent, error) {
			if ev.Usage != nil && ev.Data == nil {
				ev.Data = []byte(`{"id":"gen-test","object":"chat.completion.chunk","created":1,"model":"test/model","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":8,"total_tokens":13}}`)
			}
			return ev, err
		},
	},
	"no_stream_usage": {
		run: "text/plain/stream$", want: "no usage reported",
		next: func(ev shlyuz.StreamEvent, err error) (shlyuz.StreamEvent, error) {
			ev.Usage = nil
			if ev.Data == nil && err == nil {
				ev.Data = []byte(`{"id":"gen-test","object":"chat.completion.chunk","created":1,"model":"test/model","choices":[]}`)
			}
			return ev, err
		},
	},
	"no_completion_tokens": {
		run: "text/plain/stream$", want: "CompletionTokens = 0",
		next: func(ev shlyuz.StreamEvent, err error) (shlyuz.StreamEvent, error) {
			ev.CompletionTokens = 0
			return ev, err
		},
	},
	"ignores_max_tokens": {
		run: "text/max_tokens/chat$", want: `want "tok0 tok1 tok2"`,
		req: func(r *shlyuz.UpstreamRequest) { r.MaxTokens = 0 },
	},
	"no_finish_reason": {
		run: "text/plain/chat$", want: "FinishReason not reported",
		chatOut: func(r *shlyuz.ChatResponse, err error) (*shlyuz.ChatResponse, error) {
			if r != nil {
				r.FinishReason = ""
			}
			return r, err
		},
	},
	"arguments_object": {
		run: "tools/chat$", want: "is not a JSON string",
		chatOut: func(r *shlyuz.ChatResponse, err error) (*shlyuz.ChatResponse, error) {
			if r != nil {
				r.Choices = bytes.Replace(r.Choices, []byte(`"arguments":"{\"city\":\"Moscow\"}"`), []byte(`"arguments":{"city":"Moscow"}`), 1)
			}
			return r, err
		},
	},
	"drops_tools": {
		run: "tools/stream$", want: "0 tool calls",
		req: func(r *shlyuz.UpstreamRequest) { delete(r.Fields, "tools") },
	},
	"claims_no_vision": {
		run: "text/vision", want: "the request was not refused",
		target: func(tg *conformance.Target) { tg.NoVision = "pretends to have no vision" },
	},
	"faults_not_marked": {
		run: "errors_before_first_byte/500/chat$", want: "UpstreamFault false",
		chatOut: func(r *shlyuz.ChatResponse, err error) (*shlyuz.ChatResponse, error) {
			return r, mapErr(err, func(e *shlyuz.Error) { e.UpstreamFault = false })
		},
	},
	"no_retry_after": {
		run: "errors_before_first_byte/429/stream$", want: "RetryAfter 0s",
		streamErr: func(err error) error {
			return mapErr(err, func(e *shlyuz.Error) { e.RetryAfter = 0 })
		},
	},
	"client_error_as_fault": {
		run: "errors_before_first_byte/400/chat$", want: "must not count against it",
		chatOut: func(r *shlyuz.ChatResponse, err error) (*shlyuz.ChatResponse, error) {
			return r, mapErr(err, func(e *shlyuz.Error) { e.UpstreamFault = true })
		},
	},
	"leaves_hung_upstream": {
		run: "errors_before_first_byte/hang/chat$", want: "did not close its connection",
		chatCall: func(p shlyuz.Provider, ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
			type result struct {
				r   *shlyuz.ChatResponse
				err error
			}
			done := make(chan result, 1)
			go func() { // the defect: the upstream call outlives the caller
				r, err := p.Chat(context.WithoutCancel(ctx), req)
				done <- result{r, err}
			}()
			select {
			case res := <-done:
				return res.r, res.err
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	},
	"eof_on_midstream_error": {
		run: "errors_after_first_byte/midstream-error$", want: "ended with io.EOF",
		next: func(ev shlyuz.StreamEvent, err error) (shlyuz.StreamEvent, error) {
			if err != nil {
				err = io.EOF
			}
			return ev, err
		},
	},
	"ignores_cancel": {
		run: "cancellation/context$", want: "Next still blocked",
		streamCtx: context.WithoutCancel,
	},
	"cancel_as_fault": {
		run: "cancellation/context$", want: "giving up is not the upstream's fault",
		next: func(ev shlyuz.StreamEvent, err error) (shlyuz.StreamEvent, error) {
			if errors.Is(err, context.Canceled) {
				err = shlyuz.ErrUpstream("the upstream broke off")
			}
			return ev, err
		},
	},
	"close_noop": {
		run: "cancellation/close$", want: "Next still blocked",
		closeNoop: true,
	},
}

func (m *mutant) wrap(p shlyuz.Provider) shlyuz.Provider { return &mutantProvider{p: p, m: m} }

type mutantProvider struct {
	p shlyuz.Provider
	m *mutant
}

func (mp *mutantProvider) prep(req *shlyuz.UpstreamRequest) *shlyuz.UpstreamRequest {
	if mp.m.req != nil {
		mp.m.req(req)
	}
	return req
}

func (mp *mutantProvider) Chat(ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	req = mp.prep(req)
	if mp.m.chatCall != nil {
		return mp.m.chatCall(mp.p, ctx, req)
	}
	r, err := mp.p.Chat(ctx, req)
	if mp.m.chatOut != nil {
		return mp.m.chatOut(r, err)
	}
	return r, err
}

func (mp *mutantProvider) ChatStream(ctx context.Context, req *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	req = mp.prep(req)
	if mp.m.streamCtx != nil {
		ctx = mp.m.streamCtx(ctx)
	}
	st, err := mp.p.ChatStream(ctx, req)
	if mp.m.streamErr != nil {
		err = mp.m.streamErr(err)
	}
	if err != nil {
		return nil, err
	}
	return &mutantStream{st: st, m: mp.m}, nil
}

type mutantStream struct {
	st shlyuz.ChatStream
	m  *mutant
}

func (s *mutantStream) Next() (shlyuz.StreamEvent, error) {
	ev, err := s.st.Next()
	if s.m.next != nil {
		return s.m.next(ev, err)
	}
	return ev, err
}

func (s *mutantStream) Close() error {
	if s.m.closeNoop {
		return nil
	}
	return s.st.Close()
}

const mutantEnv = "CONFORMANCE_MUTANT"

// TestMutant runs the suite against the mutant named in $CONFORMANCE_MUTANT;
// TestSuiteCatchesMutants runs it in a child process.
func TestMutant(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("run by TestSuiteCatchesMutants")
	}
	m, ok := mutants[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	tg := conformance.Target{
		Name: name,
		New: func(t *testing.T, baseURL string) shlyuz.Provider {
			return m.wrap(openai.New(shlyuz.UpstreamConfig{Name: "mutant", BaseURL: baseURL + "/v1"}))
		},
	}
	if m.target != nil {
		m.target(&tg)
	}
	conformance.Run(t, tg)
}

// TestSuiteCatchesMutants proves the suite's assertions can fail: each defect
// planted in the (passing) OpenAI adapter makes the suite fail with the
// message that names it.
func TestSuiteCatchesMutants(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("in a child")
	}
	if testing.Short() {
		t.Skip("runs the suite in child processes")
	}
	for name, m := range mutants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMutant$/^"+name+"$/"+m.run, "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), mutantEnv+"="+name)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite passed the mutant (err %v):\n%s", err, out)
			}
			if !strings.Contains(string(out), m.want) {
				t.Errorf("the suite failed, but without saying %q:\n%s", m.want, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestMutant/"+name+"/") {
				t.Errorf("no failing subtest:\n%s", out)
			}
		})
	}
}
