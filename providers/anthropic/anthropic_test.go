package anthropic_test

import (
	"context"
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
	adaptertest.CheckSent(t, sent, map[string]string{
		"model":          `"claude-x"`,
		"max_tokens":     "1000",
		"temperature":    "1",
		"top_p":          "0.9",
		"stop_sequences": `["END"]`,
		"metadata":       `{"user_id":"u-42"}`,
		"system":         `[{"type":"text","text":"Be brief."},{"type":"text","text":"Answer in English."}]`,
		"messages":       `[{"role":"user","content":[{"type":"text","text":"Hello there, how are you?"}]}]`,
	})
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

// collect reads a finished stream's events, checking each chunk's shape.
func collect(t *testing.T, events []shlyuz.StreamEvent, clientUsage bool) adaptertest.Streamed {
	t.Helper()
	return adaptertest.Collect(t, events, checkChunk(t, clientUsage))
}

// checkChunk checks the shape of a stream's events and chunks.
func checkChunk(t *testing.T, clientUsage bool) func(int, shlyuz.StreamEvent, *adaptertest.Chunk) {
	return func(i int, ev shlyuz.StreamEvent, c *adaptertest.Chunk) {
		if c == nil {
			if ev.Usage == nil {
				t.Errorf("event %d has neither data nor usage", i)
			}
			return
		}
		adaptertest.CheckChunk(t, i, c, "public/", clientUsage)
		if c.Created == 0 {
			t.Errorf("event %d: created %d", i, c.Created)
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
		for _, tc := range ch.Delta.ToolCalls {
			if tc.Index != 0 {
				t.Errorf("tool call index %d", tc.Index)
			}
			if tc.ID != "" && tc.Type != "function" {
				t.Errorf("tool call type %q", tc.Type)
			}
		}
	}
}

func TestChatStream(t *testing.T) {
	for _, tc := range []adaptertest.StreamCase{
		adaptertest.UsageAsked,
		{
			Name:    "vision",
			Body:    `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe this picture please"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`,
			Content: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			Finish:  "stop",
			Usage:   shlyuz.Usage{PromptTokens: 7 + 85, CompletionTokens: 8, TotalTokens: 100},
		},
		adaptertest.Capped,
	} {
		t.Run(tc.Name, func(t *testing.T) {
			u := startFake(t, fake.Options{ReplyTokens: 8})
			p := u.provider(t, nil)
			req := request(t, "claude-x", true, tc.Body)
			if tc.MaxTokens > 0 {
				req.MaxTokens = tc.MaxTokens
			}
			st, err := p.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			tc.Check(t, st, checkChunk(t, tc.ClientAsked()))
			sent := u.SentBody(t)
			if string(sent["stream"]) != "true" {
				t.Errorf("sent stream %s", sent["stream"])
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
	events := adaptertest.ReadToEnd(t, st)
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
				s := collect(t, adaptertest.ReadToEnd(t, st), false)
				st.Close()
				id, fn, args, finish = s.ToolID, s.ToolName, s.Args, s.Finish
				if s.Content != "" || s.Usage == nil || s.Usage.CompletionTokens != fake.ToolCallTokens {
					t.Errorf("content %q usage %+v", s.Content, s.Usage)
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
			follow := adaptertest.FollowUp("What is the weather in Moscow?", id, args, "Sunny, +20", tools)
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
	adaptertest.Faults(t, []adaptertest.Fault{
		{Fault: "500", Status: 502, Code: "upstream_error", Upstream: true, Msg: "HTTP 500, api_error"},
		{Fault: "502", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "503", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "529", Status: 503, Code: "provider_unavailable", Upstream: true, Msg: "overloaded"},
		{Fault: "504", Status: 504, Code: "upstream_timeout", Upstream: true, Msg: "timeout_error"},
		{Fault: "429", Status: 429, Code: "rate_limited", Upstream: true, RetryAfter: 2 * time.Second, Msg: "rate limit"},
		{Fault: "quota", Status: 502, Code: "upstream_error", Upstream: true, Msg: "out of credits"},
		{Fault: "402", Status: 502, Code: "upstream_error", Upstream: true, Msg: "out of credits"},
		{Fault: "400", Status: 400, Code: "invalid_value", Upstream: false, Msg: "prompt is too long"},
		{Fault: "413", Status: 400, Code: "invalid_value", Upstream: false, Msg: "maximum allowed number of bytes"},
		{Fault: "422", Status: 400, Code: "invalid_value", Upstream: false},
		{Fault: "404", Status: 502, Code: "upstream_error", Upstream: true, Msg: "not_found_error"},
		{Fault: "401", Status: 502, Code: "upstream_error", Upstream: true, Msg: "credentials (HTTP 401, authentication_error)"},
		{Fault: "403", Status: 502, Code: "upstream_error", Upstream: true, Msg: "credentials (HTTP 403, permission_error)"},
		{Fault: "409", Status: 502, Code: "upstream_error", Upstream: true, Msg: "HTTP 409"},
	}, adaptertest.ChatAndStream, func(t *testing.T, fault string, stream bool) error {
		return adaptertest.CallError(t, u.provider(t, nil), request(t, "claude/fault-"+fault, stream, adaptertest.HelloBody))
	}, func(t *testing.T, _ adaptertest.Fault, e *shlyuz.Error) {
		if e.Cause == nil {
			t.Error("no cause for the logs")
		}
	})
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
	for _, stream := range adaptertest.ChatAndStream {
		e := adaptertest.AsError(t, adaptertest.CallError(t, p, request(t, "m", stream, adaptertest.HelloBody)), 502, "upstream_error", true)
		if e.Cause == nil {
			t.Error("no cause for the logs")
		}
		adaptertest.NotLeaked(t, e, "sk-", "6789", "x-api-key")
	}
}

func TestMalformedReply(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	adaptertest.Faults(t, adaptertest.BrokenReplies, adaptertest.ChatOnly, func(t *testing.T, fault string, stream bool) error {
		return adaptertest.CallError(t, p, request(t, "m/fault-"+fault, stream, adaptertest.HelloBody))
	}, nil)
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
	s := collect(t, adaptertest.ReadToEnd(t, st), false)
	adaptertest.NoUsage(t, s.Events, 16)
	if s.Finish != "stop" {
		t.Errorf("finish %q, want stop", s.Finish)
	}
}

// TestStreamFaults checks failures after the stream started: Next returns them.
func TestStreamFaults(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8})
	adaptertest.StreamFaults(t, []adaptertest.StreamFault{
		{Fault: "cut", Msg: "broke off"},
		{Fault: "midstream-error", Status: 503, Code: "provider_unavailable", Msg: "overloaded_error"},
		{Fault: "malformed", Msg: "malformed"},
	}, 4, func(t *testing.T, fault string) (shlyuz.ChatStream, error) { // the fake fails half way through 8 words
		return u.provider(t, nil).ChatStream(context.Background(), request(t, "m/fault-"+fault, true, adaptertest.HelloBody))
	}, nil)
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
	if s.ToolName != "w" || s.Args == "" || s.Args == fake.ToolArguments {
		t.Errorf("before the failure: tool %q args %q", s.ToolName, s.Args)
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
