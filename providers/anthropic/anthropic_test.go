package anthropic_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/anthropic"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// upstream is a fake Anthropic API on loopback.
type upstream struct{ *adaptertest.Upstream }

func startFake(t *testing.T, opts fake.Options) *upstream {
	t.Helper()
	return &upstream{adaptertest.StartFake(t, opts, nil)}
}

func newProvider(t *testing.T, cfg shlyuz.UpstreamConfig) *anthropic.Provider {
	t.Helper()
	p, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p
}

func (u *upstream) provider(t *testing.T, mod func(*shlyuz.UpstreamConfig)) *anthropic.Provider {
	t.Helper()
	cfg := shlyuz.UpstreamConfig{Name: "fake", Protocol: "anthropic", BaseURL: u.TS.URL + "/", APIKey: "sk-ant-fake"}
	if mod != nil {
		mod(&cfg)
	}
	return newProvider(t, cfg)
}

// request builds an UpstreamRequest from a client body, with the gateway's token ceiling.
func request(t *testing.T, model string, stream bool, body string) *shlyuz.UpstreamRequest {
	t.Helper()
	r := adaptertest.Request(t, model, stream, body)
	r.MaxTokens = 1000
	return r
}

func TestChat(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 5, APIKey: "sk-ant-upstream-secret"})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) {
		c.APIKey = "sk-ant-upstream-secret"
		c.Headers = map[string]string{"anthropic-beta": "prompt-caching-2024-07-31"}
	})
	req := request(t, "claude-x", false, `{"model":"public/claude-x","messages":[
		{"role":"system","content":"Be brief."},
		{"role":"developer","content":[{"type":"text","text":"Answer in English."}]},
		{"role":"user","content":"Hello there, how are you?"}],
		"temperature":1.7,"top_p":0.9,"stop":"END","user":"u-42","n":1,"seed":7,"logprobs":false,
		"frequency_penalty":0.5,"response_format":{"type":"text"},"x_unknown":{"a":1},"stream":false}`)
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	c := adaptertest.OnlyChoice(t, resp)
	if c.Message.Role != "assistant" || c.Message.Content == nil || *c.Message.Content != "tok0 tok1 tok2 tok3 tok4" {
		t.Errorf("message = %+v", c.Message)
	}
	// "Be brief." + "Answer in English." + the question = 9+18+25 = 52 chars: 13 tokens.
	want := shlyuz.Usage{PromptTokens: 13, CompletionTokens: 5, TotalTokens: 18}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.FinishReason != "stop" || c.FinishReason != "stop" || resp.Created == 0 {
		t.Errorf("response = %+v, choice finish %q", resp, c.FinishReason)
	}

	sent := u.SentBody(t)
	for field, want := range map[string]string{
		"model":          `"claude-x"`,
		"max_tokens":     "1000",
		"temperature":    "1",
		"top_p":          "0.9",
		"stop_sequences": `["END"]`,
		"metadata":       `{"user_id":"u-42"}`,
		"system":         `[{"type":"text","text":"Be brief."},{"type":"text","text":"Answer in English."}]`,
		"messages":       `[{"role":"user","content":[{"type":"text","text":"Hello there, how are you?"}]}]`,
	} {
		if got := string(sent[field]); got != want {
			t.Errorf("sent %s = %s, want %s", field, got, want)
		}
	}
	if len(sent) != 8 {
		t.Errorf("sent %d fields, want 8: %s", len(sent), u.Fake.LastRequest())
	}
	h := u.Fake.LastHeader()
	if h.Get("X-Api-Key") != "sk-ant-upstream-secret" || h.Get("Anthropic-Version") != anthropic.DefaultAPIVersion ||
		h.Get("Content-Type") != "application/json" || h.Get("Anthropic-Beta") != "prompt-caching-2024-07-31" ||
		h.Get("Authorization") != "" {
		t.Errorf("headers = %v", h)
	}
}

func TestSettings(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) { c.APIVersion = "2099-01-01"; c.BaseURL = u.TS.URL + "/v1" })
	if p.URL() != u.TS.URL+"/v1/messages" {
		t.Errorf("URL = %s", p.URL())
	}
	req := request(t, "m", false, adaptertest.HelloBody)
	req.MaxTokens = 0 // the gateway always sets it; without it, the default goes up
	if _, err := p.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if v := u.Fake.LastHeader().Get("Anthropic-Version"); v != "2099-01-01" {
		t.Errorf("anthropic-version = %q", v)
	}
	if got := string(u.SentBody(t)["max_tokens"]); got != "4096" {
		t.Errorf("max_tokens = %s, want the default", got)
	}
	req = request(t, "m", false, `{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":77}`)
	req.MaxTokens = 0
	if _, err := p.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := string(u.SentBody(t)["max_tokens"]); got != "77" {
		t.Errorf("max_tokens = %s, want the client's 77", got)
	}
}

func TestNew(t *testing.T) {
	p, err := anthropic.New(shlyuz.UpstreamConfig{})
	if err != nil || p.URL() != "https://api.anthropic.com/v1/messages" {
		t.Errorf("default: %v %v", p, err)
	}
	for _, base := range []string{"api.anthropic.com", "ftp://x", "http://", ":%"} {
		if _, err := anthropic.New(shlyuz.UpstreamConfig{BaseURL: base}); err == nil {
			t.Errorf("base_url %q accepted", base)
		}
	}
	dir := t.TempDir()
	if _, err := anthropic.New(shlyuz.UpstreamConfig{CAFile: filepath.Join(dir, "missing.pem")}); err == nil {
		t.Error("a missing CA file accepted")
	}
	junk := filepath.Join(dir, "junk.pem")
	os.WriteFile(junk, []byte("not a certificate"), 0o600)
	if _, err := anthropic.New(shlyuz.UpstreamConfig{CAFile: junk}); err == nil {
		t.Error("a CA file without certificates accepted")
	}
}

// TestCAFile reaches a TLS upstream whose certificate only the CA file vouches for.
func TestCAFile(t *testing.T) {
	f := fake.New(fake.Options{})
	ts := httptest.NewTLSServer(f)
	t.Cleanup(ts.Close)
	t.Cleanup(f.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	cert := ts.Certificate()
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	without := newProvider(t, shlyuz.UpstreamConfig{BaseURL: ts.URL})
	if _, err := without.Chat(context.Background(), request(t, "m", false, adaptertest.HelloBody)); err == nil {
		t.Fatal("an unknown CA was trusted")
	}
	with := newProvider(t, shlyuz.UpstreamConfig{BaseURL: ts.URL, CAFile: caFile})
	if _, err := with.Chat(context.Background(), request(t, "m", false, adaptertest.HelloBody)); err != nil {
		t.Fatalf("with the CA file: %v", err)
	}
}

// streamed is what a stream said, put together.
type streamed struct {
	content  string
	toolName string
	toolID   string
	args     string
	finish   string
	usage    *shlyuz.Usage
	tokens   int64
	events   int
}

// collect reads a finished stream's events, checking each chunk's shape.
func collect(t *testing.T, events []shlyuz.StreamEvent, clientUsage bool) streamed {
	t.Helper()
	var s streamed
	var content, args strings.Builder
	s.events = len(events)
	for i, ev := range events {
		s.tokens += ev.CompletionTokens
		if ev.FinishReason != "" {
			s.finish = ev.FinishReason
		}
		if ev.Usage != nil {
			s.usage = ev.Usage
		}
		if ev.Data == nil {
			if ev.Usage == nil {
				t.Errorf("event %d has neither data nor usage", i)
			}
			continue
		}
		var c adaptertest.Chunk
		if err := json.Unmarshal(ev.Data, &c); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, ev.Data)
		}
		if c.ID != "gen-abc" || !strings.HasPrefix(c.Model, "public/") || c.Object != "chat.completion.chunk" || c.Created == 0 {
			t.Errorf("event %d: id %q model %q object %q created %d", i, c.ID, c.Model, c.Object, c.Created)
		}
		if clientUsage != (c.Usage != nil) {
			t.Errorf("event %d: usage member %s, client asked %v", i, c.Usage, clientUsage)
		}
		if len(c.Choices) != 1 {
			t.Fatalf("event %d: %d choices", i, len(c.Choices))
		}
		ch := c.Choices[0]
		if i == 0 && ch.Delta.Role != "assistant" {
			t.Errorf("first chunk has no role: %s", ev.Data)
		}
		if (ch.FinishReason != nil) != (ev.FinishReason != "") || (ch.FinishReason != nil && *ch.FinishReason != ev.FinishReason) {
			t.Errorf("event %d: finish %q, chunk says %v", i, ev.FinishReason, ch.FinishReason)
		}
		content.WriteString(ch.Delta.Text())
		for _, tc := range ch.Delta.ToolCalls {
			if tc.Index != 0 {
				t.Errorf("tool call index %d", tc.Index)
			}
			if tc.ID != "" {
				s.toolID, s.toolName = tc.ID, tc.Function.Name
				if tc.Type != "function" {
					t.Errorf("tool call type %q", tc.Type)
				}
			}
			args.WriteString(tc.Function.Arguments)
		}
	}
	s.content, s.args = content.String(), args.String()
	return s
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
			name:        "vision",
			body:        `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe this picture please"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`,
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
			req := request(t, "claude-x", true, tc.body)
			if tc.maxTokens > 0 {
				req.MaxTokens = tc.maxTokens
			}
			st, err := p.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			events, err := adaptertest.ReadAll(st)
			if err != io.EOF {
				t.Fatalf("stream ended with %v, want io.EOF", err)
			}
			s := collect(t, events, strings.Contains(tc.body, `"include_usage":true`))
			if s.content != tc.wantContent {
				t.Errorf("content = %q, want %q", s.content, tc.wantContent)
			}
			if s.finish != tc.wantFinish {
				t.Errorf("finish = %q, want %q", s.finish, tc.wantFinish)
			}
			if s.usage == nil || *s.usage != tc.wantUsage {
				t.Errorf("usage = %+v, want %+v", s.usage, tc.wantUsage)
			}
			if s.tokens != tc.wantUsage.CompletionTokens {
				t.Errorf("counted tokens = %d, want %d", s.tokens, tc.wantUsage.CompletionTokens)
			}
			sent := u.SentBody(t)
			if string(sent["stream"]) != "true" {
				t.Errorf("sent stream %s", sent["stream"])
			}
			if _, err := st.Next(); err != io.EOF {
				t.Errorf("Next after the end = %v, want io.EOF again", err)
			}
		})
	}
}

// TestStreamRunningUsage checks that a stream cut short by the client is
// billed for what it carried: each event's usage is a running total whose
// completion count is at least the content seen so far.
func TestStreamRunningUsage(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 6})
	p := u.provider(t, nil)
	st, err := p.ChatStream(context.Background(), request(t, "m", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := adaptertest.ReadAll(st)
	if err != io.EOF {
		t.Fatal(err)
	}
	var counted int64
	for i, ev := range events {
		counted += ev.CompletionTokens
		if ev.Usage == nil {
			t.Fatalf("event %d has no usage", i)
		}
		if ev.Usage.PromptTokens != 6 || ev.Usage.CompletionTokens < counted {
			t.Errorf("event %d: usage %+v after %d content events", i, ev.Usage, counted)
		}
	}
	if last := events[len(events)-1].Usage; last.CompletionTokens != 6 || last.TotalTokens != 12 {
		t.Errorf("final usage %+v", last)
	}
}

func TestTools(t *testing.T) {
	const tools = `"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}],"tool_choice":"auto"`
	first := `{"messages":[{"role":"user","content":"What is the weather in Moscow?"}],` + tools + `}`
	for _, stream := range []bool{false, true} {
		name := "chat"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			u := startFake(t, fake.Options{ReplyTokens: 4})
			p := u.provider(t, nil)
			var id, fn, args, finish string
			if stream {
				st, err := p.ChatStream(context.Background(), request(t, "m", true, first))
				if err != nil {
					t.Fatal(err)
				}
				events, err := adaptertest.ReadAll(st)
				st.Close()
				if err != io.EOF {
					t.Fatal(err)
				}
				s := collect(t, events, false)
				id, fn, args, finish = s.toolID, s.toolName, s.args, s.finish
				if s.content != "" || s.usage == nil || s.usage.CompletionTokens != fake.ToolCallTokens {
					t.Errorf("content %q usage %+v", s.content, s.usage)
				}
			} else {
				resp, err := p.Chat(context.Background(), request(t, "m", false, first))
				if err != nil {
					t.Fatal(err)
				}
				c := adaptertest.OnlyChoice(t, resp)
				if c.Message.Content != nil || len(c.Message.ToolCalls) != 1 {
					t.Fatalf("message %s", resp.Choices)
				}
				tc := c.Message.ToolCalls[0]
				id, fn, args, finish = tc.ID, tc.Function.Name, tc.Function.Arguments, resp.FinishReason
				if tc.Type != "function" || c.FinishReason != finish {
					t.Errorf("choice %s", resp.Choices)
				}
			}
			if fn != "get_weather" || args != fake.ToolArguments || finish != "tool_calls" || !strings.HasPrefix(id, "toolu_") {
				t.Fatalf("tool call id %q name %q args %q finish %q", id, fn, args, finish)
			}
			sent := u.SentBody(t)
			if got := string(sent["tools"]); got != `[{"name":"get_weather","description":"Weather in a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]` {
				t.Errorf("sent tools %s", got)
			}
			if got := string(sent["tool_choice"]); got != `{"type":"auto"}` {
				t.Errorf("sent tool_choice %s", got)
			}

			// The follow-up: the call and its result go back; the fake checks they pair.
			argsJSON, _ := json.Marshal(args)
			follow := `{"messages":[{"role":"user","content":"What is the weather in Moscow?"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"get_weather","arguments":` + string(argsJSON) + `}}]},` +
				`{"role":"tool","tool_call_id":"` + id + `","content":"Sunny, +20"}],` + tools + `}`
			resp, err := p.Chat(context.Background(), request(t, "m", false, follow))
			if err != nil {
				t.Fatal(err)
			}
			c := adaptertest.OnlyChoice(t, resp)
			if c.Message.Content == nil || *c.Message.Content != "tok0 tok1 tok2 tok3" || len(c.Message.ToolCalls) != 0 || resp.FinishReason != "stop" {
				t.Errorf("follow-up answer %s", resp.Choices)
			}
			msgs := string(u.SentBody(t)["messages"])
			want := `[{"role":"user","content":[{"type":"text","text":"What is the weather in Moscow?"}]},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"get_weather","input":{"city":"Moscow"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"Sunny, +20"}]}]`
			if msgs != want {
				t.Errorf("sent messages\n%s\nwant\n%s", msgs, want)
			}
		})
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
		upstream   bool
		retryAfter time.Duration
		msg        string
	}{
		{fault: "500", status: 502, code: "upstream_error", upstream: true, msg: "HTTP 500, api_error"},
		{fault: "502", status: 502, code: "upstream_error", upstream: true},
		{fault: "503", status: 502, code: "upstream_error", upstream: true},
		{fault: "529", status: 503, code: "provider_unavailable", upstream: true, msg: "overloaded"},
		{fault: "504", status: 504, code: "upstream_timeout", upstream: true, msg: "timeout_error"},
		{fault: "429", status: 429, code: "rate_limited", upstream: true, retryAfter: 2 * time.Second, msg: "rate limit"},
		{fault: "quota", status: 502, code: "upstream_error", upstream: true, msg: "out of credits"},
		{fault: "402", status: 502, code: "upstream_error", upstream: true, msg: "out of credits"},
		{fault: "400", status: 400, code: "invalid_value", upstream: false, msg: "prompt is too long"},
		{fault: "413", status: 400, code: "invalid_value", upstream: false, msg: "maximum allowed number of bytes"},
		{fault: "422", status: 400, code: "invalid_value", upstream: false},
		{fault: "404", status: 502, code: "upstream_error", upstream: true, msg: "not_found_error"},
		{fault: "401", status: 502, code: "upstream_error", upstream: true, msg: "credentials (HTTP 401, authentication_error)"},
		{fault: "403", status: 502, code: "upstream_error", upstream: true, msg: "credentials (HTTP 403, permission_error)"},
		{fault: "409", status: 502, code: "upstream_error", upstream: true, msg: "HTTP 409"},
	} {
		for _, stream := range []bool{false, true} {
			name := tc.fault
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				p := u.provider(t, nil)
				req := request(t, "claude/fault-"+tc.fault, stream, adaptertest.HelloBody)
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
				e := adaptertest.AsError(t, err, tc.status, tc.code, tc.upstream)
				if e.RetryAfter != tc.retryAfter {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tc.retryAfter)
				}
				if !strings.Contains(e.Message, tc.msg) {
					t.Errorf("message %q does not mention %q", e.Message, tc.msg)
				}
				if e.Cause == nil {
					t.Error("no cause for the logs")
				}
			})
		}
	}
}

func TestFaultHeader(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) { c.Headers = map[string]string{fake.FaultHeader: "529"} })
	_, err := p.Chat(context.Background(), request(t, "m", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 503, "provider_unavailable", true)
}

func TestWrongKeyNotLeaked(t *testing.T) {
	u := startFake(t, fake.Options{APIKey: "sk-ant-right-key-000000"})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) { c.APIKey = "sk-ant-wrong-key-123456789" })
	for _, stream := range []bool{false, true} {
		var err error
		if stream {
			_, err = p.ChatStream(context.Background(), request(t, "m", true, adaptertest.HelloBody))
		} else {
			_, err = p.Chat(context.Background(), request(t, "m", false, adaptertest.HelloBody))
		}
		e := adaptertest.AsError(t, err, 502, "upstream_error", true)
		for _, part := range []string{"sk-", "6789", "x-api-key"} {
			if strings.Contains(e.Message, part) || strings.Contains(e.Cause.Error(), part) {
				t.Errorf("error %q (cause %q) leaks %q", e.Message, e.Cause, part)
			}
		}
	}
}

func TestMalformedReply(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	_, err := p.Chat(context.Background(), request(t, "m/fault-malformed", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "malformed") {
		t.Errorf("message %q", e.Message)
	}
	_, err = p.Chat(context.Background(), request(t, "m/fault-cut", false, adaptertest.HelloBody))
	e = adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "broke off") {
		t.Errorf("message %q", e.Message)
	}
	_, err = p.Chat(context.Background(), request(t, "m/fault-midstream-error", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 502, "upstream_error", true)
}

func TestChatNoUsage(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 3})
	p := u.provider(t, nil)
	resp, err := p.Chat(context.Background(), request(t, "m/fault-nousage", false, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != (shlyuz.Usage{}) || *adaptertest.OnlyChoice(t, resp).Message.Content != "tok0 tok1 tok2" {
		t.Errorf("response %+v %s", resp, resp.Choices)
	}
}

func TestStreamNoUsage(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	st, err := p.ChatStream(context.Background(), request(t, "m/fault-nousage", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := adaptertest.ReadAll(st)
	if err != io.EOF {
		t.Fatalf("err = %v", err)
	}
	s := collect(t, events, false)
	if s.usage != nil {
		t.Errorf("usage reported: %+v", s.usage)
	}
	if s.tokens != 16 || s.finish != "stop" {
		t.Errorf("counted %d tokens, finish %q; want 16, stop", s.tokens, s.finish)
	}
}

// TestStreamFaults checks failures after the stream started: Next returns them.
func TestStreamFaults(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8})
	for _, tc := range []struct {
		fault  string
		status int
		code   string
		msg    string
	}{
		{"cut", 502, "upstream_error", "broke off"},
		{"midstream-error", 503, "provider_unavailable", "overloaded_error"},
		{"malformed", 502, "upstream_error", "malformed"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			p := u.provider(t, nil)
			st, err := p.ChatStream(context.Background(), request(t, "m/fault-"+tc.fault, true, adaptertest.HelloBody))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			events, err := adaptertest.ReadAll(st)
			e := adaptertest.AsError(t, err, tc.status, tc.code, true)
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not mention %q", e.Message, tc.msg)
			}
			var tokens int64
			for _, ev := range events {
				tokens += ev.CompletionTokens
			}
			if tokens != 4 { // the fake fails half way through 8 words
				t.Errorf("%d tokens before the failure, want 4", tokens)
			}
			if _, err2 := st.Next(); err2 != err {
				t.Errorf("Next after the failure = %v, want the same error", err2)
			}
		})
	}
}

// TestStreamToolFaults interrupts a streamed tool call.
func TestStreamToolFaults(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	body := `{"messages":[{"role":"user","content":"weather?"}],"tools":[{"type":"function","function":{"name":"w"}}]}`
	st, err := p.ChatStream(context.Background(), request(t, "m/fault-midstream-error", true, body))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := adaptertest.ReadAll(st)
	adaptertest.AsError(t, err, 503, "provider_unavailable", true)
	s := collect(t, events, false)
	if s.toolName != "w" || s.args == "" || s.args == fake.ToolArguments {
		t.Errorf("before the failure: tool %q args %q", s.toolName, s.args)
	}
}

func TestClientErrors(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	for _, tc := range []struct {
		name, body, param string
	}{
		{"no messages", `{"model":"x"}`, "messages"},
		{"messages not an array", `{"messages":{"role":"user"}}`, "messages"},
		{"only system", `{"messages":[{"role":"system","content":"be nice"}]}`, "messages"},
		{"unknown role", `{"messages":[{"role":"function","name":"f","content":"x"}]}`, "messages"},
		{"ftp image", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"ftp://x/y.png"}}]}]}`, "messages"},
		{"data URL not base64", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png,abc"}}]}]}`, "messages"},
		{"audio", `{"messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"x","format":"wav"}}]}]}`, "messages"},
		{"arguments not an object", `{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"[1]"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, "messages"},
		{"tool without id", `{"messages":[{"role":"user","content":"x"},{"role":"tool","content":"r"}]}`, "messages"},
		{"image in system", `{"messages":[{"role":"system","content":[{"type":"image_url","image_url":{"url":"https://x/y.png"}}]},{"role":"user","content":"x"}]}`, "messages"},
		{"temperature not a number", `{"messages":[{"role":"user","content":"x"}],"temperature":"hot"}`, "temperature"},
		{"stop not strings", `{"messages":[{"role":"user","content":"x"}],"stop":[1]}`, "stop"},
		{"custom tool", `{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"custom","custom":{"name":"c"}}]}`, "tools"},
		{"bad tool_choice", `{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"sometimes"}`, "tool_choice"},
	} {
		for _, stream := range []bool{false, true} {
			name := tc.name
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				before := u.Fake.Requests()
				var err error
				if stream {
					_, err = p.ChatStream(context.Background(), request(t, "m", true, tc.body))
				} else {
					_, err = p.Chat(context.Background(), request(t, "m", false, tc.body))
				}
				var e *shlyuz.Error
				if !errors.As(err, &e) || e.Status != 400 || e.UpstreamFault || e.Param == nil || *e.Param != tc.param {
					t.Fatalf("err = %#v, want a 400 on %q", err, tc.param)
				}
				if u.Fake.Requests() != before {
					t.Error("the request went upstream")
				}
			})
		}
	}
}

func TestJSONInsteadOfStream(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	}))
	defer ts.Close()
	p := newProvider(t, shlyuz.UpstreamConfig{BaseURL: ts.URL})
	_, err := p.ChatStream(context.Background(), request(t, "m", true, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 503, "provider_unavailable", true)
	_, err = p.Chat(context.Background(), request(t, "m", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 503, "provider_unavailable", true)
}

// TestTransport runs the checks of timeouts, cancellation and connections
// that every adapter passes.
func TestTransport(t *testing.T) {
	adaptertest.Transport(t, adaptertest.Target{
		Provider: func(t *testing.T, u *adaptertest.Upstream, mod func(*shlyuz.UpstreamConfig)) shlyuz.Provider {
			return (&upstream{u}).provider(t, mod)
		},
		Request: request,
		Model:   "m",
		Faults:  "m/",
		Lead:    3, // the role chunk and two words
		Closed:  anthropic.ErrStreamClosed,
	})
}
