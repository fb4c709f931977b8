package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
	"github.com/shlyuz/shlyuz/providers/openai"
)

// upstream is a fake upstream on loopback.
type upstream struct{ *adaptertest.Upstream }

func startFake(t *testing.T, opts fake.Options) *upstream {
	t.Helper()
	return &upstream{adaptertest.StartFake(t, opts, nil)}
}

func (u *upstream) provider(t *testing.T, mod func(*shlyuz.UpstreamConfig)) *openai.Provider {
	cfg := shlyuz.UpstreamConfig{Name: "fake", BaseURL: u.TS.URL + "/v1/"}
	if mod != nil {
		mod(&cfg)
	}
	p := openai.New(cfg)
	t.Cleanup(p.CloseIdleConnections)
	return p
}

func TestChat(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 5, APIKey: "sk-upstream-secret"})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) {
		c.APIKey = "sk-upstream-secret"
		c.Headers = map[string]string{"OpenAI-Project": "proj_1"}
	})
	req := adaptertest.Request(t, "fake/model", false,
		`{"model":"public/fake/model","messages":[{"role":"user","content":"Hello there, how are you?"}],"temperature":0.2,"x_unknown":{"a":[1, 2]},"provider":{"order":["x"]},"stream":false}`)
	req.MaxTokens = 100
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := adaptertest.OnlyChoice(t, resp).Message.Text(); got != "tok0 tok1 tok2 tok3 tok4" {
		t.Errorf("content = %q", got)
	}
	want := shlyuz.Usage{PromptTokens: 6, CompletionTokens: 5, TotalTokens: 11}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.FinishReason != "stop" || resp.Created == 0 || resp.SystemFingerprint != "fp_fake" {
		t.Errorf("response = %+v", resp)
	}

	sent := u.SentBody(t)
	for field, want := range map[string]string{
		"model": `"fake/model"`, "max_tokens": "100", "stream": "false",
		"temperature": "0.2", "x_unknown": `{"a":[1, 2]}`,
	} {
		if got := string(sent[field]); got != want {
			t.Errorf("sent %s = %s, want %s", field, got, want)
		}
	}
	for _, field := range []string{"provider", "stream_options", "max_completion_tokens"} {
		if _, ok := sent[field]; ok {
			t.Errorf("sent %s upstream", field)
		}
	}
	h := u.Fake.LastHeader()
	if h.Get("Authorization") != "Bearer sk-upstream-secret" || h.Get("OpenAI-Project") != "proj_1" ||
		h.Get("Content-Type") != "application/json" {
		t.Errorf("headers = %v", h)
	}
}

func TestChatStream(t *testing.T) {
	for _, tc := range []struct {
		name        string
		body        string
		maxTokens   int64
		wantContent string
		wantFinish  string
		wantUsage   shlyuz.Usage
	}{
		{
			name:        "client asked usage",
			body:        `{"messages":[{"role":"user","content":"Hello there, how are you?"}],"stream":true,"stream_options":{"include_usage":true},"seed":7}`,
			wantContent: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			wantFinish:  "stop",
			wantUsage:   shlyuz.Usage{PromptTokens: 6, CompletionTokens: 8, TotalTokens: 14},
		},
		{
			name:        "client did not ask usage",
			body:        `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe this picture please"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}]}`,
			wantContent: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			wantFinish:  "stop",
			wantUsage:   shlyuz.Usage{PromptTokens: 7 + 85, CompletionTokens: 8, TotalTokens: 100},
		},
		{
			name:        "max_tokens caps the reply",
			body:        adaptertest.HelloBody,
			maxTokens:   3,
			wantContent: "tok0 tok1 tok2",
			wantFinish:  "length",
			wantUsage:   shlyuz.Usage{PromptTokens: 6, CompletionTokens: 3, TotalTokens: 9},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := startFake(t, fake.Options{ReplyTokens: 8})
			p := u.provider(t, nil)
			req := adaptertest.Request(t, "fake/model", true, tc.body)
			req.MaxTokens = tc.maxTokens
			st, err := p.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			events, err := adaptertest.ReadAll(st)
			if err != io.EOF {
				t.Fatalf("stream ended with %v, want io.EOF", err)
			}
			clientAsked := strings.Contains(tc.body, `"include_usage":true`)
			var content strings.Builder
			var usage *shlyuz.Usage
			var finish string
			var tokens int64
			for i, ev := range events {
				tokens += ev.CompletionTokens
				if ev.FinishReason != "" {
					finish = ev.FinishReason
				}
				if ev.Usage != nil {
					usage = ev.Usage
				}
				if ev.Data == nil {
					if ev.Usage == nil || i != len(events)-1 {
						t.Errorf("event %d has neither data nor usage, or is not last", i)
					}
					continue
				}
				var c adaptertest.Chunk
				if err := json.Unmarshal(ev.Data, &c); err != nil {
					t.Fatalf("event %d: %v: %s", i, err, ev.Data)
				}
				if c.ID != "gen-abc" || c.Model != "public/fake/model" || c.Object != "chat.completion.chunk" {
					t.Errorf("event %d: id %q model %q object %q", i, c.ID, c.Model, c.Object)
				}
				if clientAsked != (c.Usage != nil) {
					t.Errorf("event %d: usage member %s, client asked %v", i, c.Usage, clientAsked)
				}
				if i == 0 && c.Choices[0].Delta.Role != "assistant" {
					t.Errorf("first chunk has no role: %s", ev.Data)
				}
				for _, ch := range c.Choices {
					content.WriteString(ch.Delta.Text())
				}
			}
			if content.String() != tc.wantContent {
				t.Errorf("content = %q, want %q", content.String(), tc.wantContent)
			}
			if finish != tc.wantFinish {
				t.Errorf("finish = %q, want %q", finish, tc.wantFinish)
			}
			if usage == nil || *usage != tc.wantUsage {
				t.Errorf("usage = %+v, want %+v", usage, tc.wantUsage)
			}
			if tokens != tc.wantUsage.CompletionTokens {
				t.Errorf("estimated tokens = %d, want %d", tokens, tc.wantUsage.CompletionTokens)
			}

			sent := u.SentBody(t)
			if string(sent["stream"]) != "true" || !strings.Contains(string(sent["stream_options"]), `"include_usage":true`) {
				t.Errorf("sent stream %s stream_options %s", sent["stream"], sent["stream_options"])
			}
			if tc.maxTokens > 0 && string(sent["max_tokens"]) != "3" {
				t.Errorf("sent max_tokens %s", sent["max_tokens"])
			}
			if _, err := st.Next(); err != io.EOF {
				t.Errorf("Next after the end = %v, want io.EOF again", err)
			}
		})
	}
}

func TestStreamNoUsage(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "fake/fault-nousage", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := adaptertest.ReadAll(st)
	if err != io.EOF {
		t.Fatalf("err = %v", err)
	}
	var tokens int64
	for _, ev := range events {
		if ev.Usage != nil {
			t.Errorf("usage reported: %+v", ev.Usage)
		}
		tokens += ev.CompletionTokens
	}
	if tokens != 16 {
		t.Errorf("estimated %d tokens, want 16", tokens)
	}
}

// TestFaultsBeforeFirstByte checks the mapping of every upstream failure that
// comes before the stream starts, for Chat and ChatStream alike.
func TestFaultsBeforeFirstByte(t *testing.T) {
	u := startFake(t, fake.Options{})
	for _, tc := range []struct {
		fault      string
		status     int
		code       string
		fault_     bool
		retryAfter time.Duration
		msg        string
	}{
		{fault: "500", status: 502, code: "upstream_error", fault_: true, msg: "HTTP 500"},
		{fault: "502", status: 502, code: "upstream_error", fault_: true},
		{fault: "503", status: 502, code: "upstream_error", fault_: true},
		{fault: "429", status: 429, code: "rate_limited", fault_: true, retryAfter: 2 * time.Second},
		{fault: "quota", status: 502, code: "upstream_error", fault_: true, msg: "quota"},
		{fault: "402", status: 502, code: "upstream_error", fault_: true, msg: "out of credits"},
		{fault: "408", status: 504, code: "upstream_timeout", fault_: true},
		{fault: "400", status: 400, code: "invalid_value", fault_: false, msg: "maximum context length"},
		{fault: "404", status: 400, code: "invalid_value", fault_: false},
		{fault: "413", status: 400, code: "invalid_value", fault_: false},
		{fault: "422", status: 400, code: "invalid_value", fault_: false},
		{fault: "401", status: 502, code: "upstream_error", fault_: true, msg: "credentials"},
		{fault: "403", status: 502, code: "upstream_error", fault_: true, msg: "unsupported_country_region_territory"},
	} {
		for _, stream := range []bool{false, true} {
			name := tc.fault
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				p := u.provider(t, nil)
				req := adaptertest.Request(t, "fake/fault-"+tc.fault, stream, adaptertest.HelloBody)
				var err error
				if stream {
					var st shlyuz.ChatStream
					st, err = p.ChatStream(context.Background(), req)
					if err == nil {
						st.Close()
						t.Fatal("ChatStream succeeded")
					}
				} else {
					_, err = p.Chat(context.Background(), req)
				}
				e := adaptertest.AsError(t, err, tc.status, tc.code, tc.fault_)
				if e.RetryAfter != tc.retryAfter {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tc.retryAfter)
				}
				if !strings.Contains(e.Message, tc.msg) {
					t.Errorf("message %q does not mention %q", e.Message, tc.msg)
				}
			})
		}
	}
}

func TestFaultHeader(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) { c.Headers = map[string]string{fake.FaultHeader: "500"} })
	_, err := p.Chat(context.Background(), adaptertest.Request(t, "fake/model", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 502, "upstream_error", true)
}

func TestWrongKeyNotLeaked(t *testing.T) {
	u := startFake(t, fake.Options{APIKey: "sk-right-key-000000"})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) { c.APIKey = "sk-wrong-key-123456789" })
	_, err := p.Chat(context.Background(), adaptertest.Request(t, "fake/model", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	for _, part := range []string{"sk-", "6789", "Incorrect"} {
		if strings.Contains(e.Message, part) {
			t.Errorf("message %q leaks %q", e.Message, part)
		}
	}
}

func TestMalformedReply(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	_, err := p.Chat(context.Background(), adaptertest.Request(t, "fake/fault-malformed", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 502, "upstream_error", true)
	_, err = p.Chat(context.Background(), adaptertest.Request(t, "fake/fault-cut", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 502, "upstream_error", true)
}

// TestStreamFaults checks failures after the stream started: Next returns them.
func TestStreamFaults(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8})
	for _, tc := range []struct {
		fault string
		msg   string
	}{
		{"cut", "broke off"},
		{"midstream-error", "The server had an error"},
		{"malformed", "malformed"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			p := u.provider(t, nil)
			st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "fake/fault-"+tc.fault, true, adaptertest.HelloBody))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			events, err := adaptertest.ReadAll(st)
			e := adaptertest.AsError(t, err, 502, "upstream_error", true)
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not mention %q", e.Message, tc.msg)
			}
			var tokens int64
			for _, ev := range events {
				tokens += ev.CompletionTokens
			}
			if tokens != 4 { // the fake fails half way through 8 tokens
				t.Errorf("%d tokens before the failure, want 4", tokens)
			}
			if _, err2 := st.Next(); err2 != err {
				t.Errorf("Next after the failure = %v, want the same error", err2)
			}
		})
	}
}

// TestUnknownHost: a host name that does not resolve is an unreachable upstream.
func TestUnknownHost(t *testing.T) {
	p := openai.New(shlyuz.UpstreamConfig{Name: "nxdomain", BaseURL: "http://no-such-host.invalid/v1"})
	_, err := p.Chat(context.Background(), adaptertest.Request(t, "m", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 502, "upstream_error", true)
}

func TestLongLines(t *testing.T) {
	big := strings.Repeat("A", 3<<20) // an image chunk, megabytes on one line
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"`+big+`"},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer ts.Close()
	p := openai.New(shlyuz.UpstreamConfig{BaseURL: ts.URL})
	st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "m", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := adaptertest.ReadAll(st)
	if err != io.EOF || len(events) != 1 {
		t.Fatalf("%d events, err %v", len(events), err)
	}
	var c adaptertest.Chunk
	if err := json.Unmarshal(events[0].Data, &c); err != nil || c.Choices[0].Delta.Text() != big || c.ID != "gen-abc" {
		t.Fatalf("chunk not intact: %v", err)
	}
}

func TestJSONInsteadOfStream(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"error":{"message":"streaming is not supported","type":"invalid_request_error"}}`)
	}))
	defer ts.Close()
	p := openai.New(shlyuz.UpstreamConfig{BaseURL: ts.URL})
	_, err := p.ChatStream(context.Background(), adaptertest.Request(t, "m", true, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "streaming is not supported") {
		t.Errorf("message = %q", e.Message)
	}
}

// TestTransport runs the checks of timeouts, cancellation and connections
// that every adapter passes.
func TestTransport(t *testing.T) {
	adaptertest.Transport(t, adaptertest.Target{
		Provider: func(t *testing.T, u *adaptertest.Upstream, mod func(*shlyuz.UpstreamConfig)) shlyuz.Provider {
			return (&upstream{u}).provider(t, mod)
		},
		Request: adaptertest.Request,
		Model:   "fake/model",
		Faults:  "fake/",
		Lead:    3, // the role chunk and two tokens
		Closed:  openai.ErrStreamClosed,
	})
}
