package yandex_test

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
	"github.com/shlyuz/shlyuz/providers/yandex"
)

const (
	folder = "b1gtestfolder"
	apiKey = "AQVN-test-key-0123456789"
)

// upstream is a fake Yandex Foundation Models API on loopback.
type upstream struct{ *adaptertest.Upstream }

func startFake(t *testing.T, opts fake.Options) *upstream {
	t.Helper()
	return &upstream{adaptertest.StartFake(t, opts, nil)}
}

func (u *upstream) provider(t *testing.T, mod func(*shlyuz.UpstreamConfig)) *yandex.Provider {
	t.Helper()
	cfg := shlyuz.UpstreamConfig{Name: "yandex-fake", Protocol: "yandex", BaseURL: u.TS.URL + "/", FolderID: folder, APIKey: apiKey}
	if mod != nil {
		mod(&cfg)
	}
	p, err := yandex.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p
}

// request builds an UpstreamRequest from a client body, for the public model yandex/<model>.
func request(t *testing.T, model string, stream bool, body string) *shlyuz.UpstreamRequest {
	t.Helper()
	r := adaptertest.Request(t, model, stream, body)
	r.Model = "yandex/" + model
	return r
}

// sent is the native body the fake received last.
type sent struct {
	ModelURI          string `json:"modelUri"`
	CompletionOptions struct {
		Stream      bool            `json:"stream"`
		Temperature *float64        `json:"temperature"`
		MaxTokens   json.RawMessage `json:"maxTokens"`
	} `json:"completionOptions"`
	Messages []json.RawMessage `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
}

func lastSent(t *testing.T, u *upstream) sent {
	t.Helper()
	var s sent
	if err := json.Unmarshal(u.Fake.LastRequest(), &s); err != nil {
		t.Fatalf("last request %q: %v", u.Fake.LastRequest(), err)
	}
	return s
}

func TestChat(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 5, APIKey: apiKey})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) {
		c.Headers = map[string]string{"x-data-logging-enabled": "false"}
	})
	req := request(t, "yandexgpt", false,
		`{"messages":[{"role":"system","content":"Be kind"},{"role":"user","content":"Hello there, how are you?"}],"temperature":0.2,"top_p":0.5}`)
	req.MaxTokens = 100
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if c := adaptertest.OnlyChoice(t, resp); c.Message.Text() != "tok0 tok1 tok2 tok3 tok4" || c.Message.Role != "assistant" || c.FinishReason != "stop" {
		t.Errorf("choice = %+v", c)
	}
	// "Be kind" + "Hello there, how are you?" = 32 characters: 8 tokens.
	want := shlyuz.Usage{PromptTokens: 8, CompletionTokens: 5, TotalTokens: 13}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.FinishReason != "stop" || resp.Created == 0 || resp.SystemFingerprint != "fake" {
		t.Errorf("response = %+v", resp)
	}

	s := lastSent(t, u)
	if s.ModelURI != "gpt://"+folder+"/yandexgpt/latest" || s.CompletionOptions.Stream ||
		string(s.CompletionOptions.MaxTokens) != `"100"` || s.CompletionOptions.Temperature == nil || *s.CompletionOptions.Temperature != 0.2 {
		t.Errorf("sent %+v", s)
	}
	if len(s.Messages) != 2 || !strings.Contains(string(s.Messages[0]), `"role":"system","text":"Be kind"`) {
		t.Errorf("sent messages %s", s.Messages)
	}
	h := u.Fake.LastHeader()
	if h.Get("Authorization") != "Api-Key "+apiKey || h.Get("x-folder-id") != folder ||
		h.Get("Content-Type") != "application/json" || h.Get("x-data-logging-enabled") != "false" {
		t.Errorf("headers = %v", h)
	}
	if strings.Contains(string(u.Fake.LastRequest()), "top_p") {
		t.Errorf("top_p sent upstream: %s", u.Fake.LastRequest())
	}
}

func TestBearerAuthAndBaseURLForms(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 2, APIKey: "t1.iam-token"})
	for _, base := range []string{u.TS.URL, u.TS.URL + "/foundationModels/v1", u.TS.URL + "/foundationModels/v1/completion/"} {
		p := u.provider(t, func(c *shlyuz.UpstreamConfig) {
			c.BaseURL, c.APIKey, c.AuthScheme = base, "t1.iam-token", "Bearer"
		})
		if _, err := p.Chat(context.Background(), request(t, "yandexgpt-lite/rc", false, adaptertest.HelloBody)); err != nil {
			t.Fatalf("base %s: %v", base, err)
		}
		if h := u.Fake.LastHeader(); h.Get("Authorization") != "Bearer t1.iam-token" {
			t.Errorf("Authorization = %q", h.Get("Authorization"))
		}
		if s := lastSent(t, u); s.ModelURI != "gpt://"+folder+"/yandexgpt-lite/rc" {
			t.Errorf("modelUri = %q", s.ModelURI)
		}
	}
}

func TestNewRefusesIncompleteConfig(t *testing.T) {
	for name, cfg := range map[string]shlyuz.UpstreamConfig{
		"no folder":    {Name: "y", APIKey: "k"},
		"no key":       {Name: "y", FolderID: "f"},
		"bad scheme":   {Name: "y", FolderID: "f", APIKey: "k", AuthScheme: "OAuth"},
		"blank folder": {Name: "y", FolderID: "  ", APIKey: "k"},
	} {
		if p, err := yandex.New(cfg); err == nil || p != nil {
			t.Errorf("%s: New = %v, %v; want an error", name, p, err)
		} else if strings.Contains(err.Error(), "k\"") {
			t.Errorf("%s: error quotes the key: %v", name, err)
		}
	}
	p, err := yandex.New(shlyuz.UpstreamConfig{Name: "y", FolderID: "f", APIKey: "k", AuthScheme: "api-key"})
	if err != nil || p == nil {
		t.Fatalf("New with a lower-case scheme = %v", err)
	}
	if p.Name() != "y" {
		t.Errorf("Name = %q", p.Name())
	}
}

func TestWrongKeyNotLeaked(t *testing.T) {
	u := startFake(t, fake.Options{APIKey: "AQVN-right-key-000000"})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) { c.APIKey = "AQVN-wrong-key-123456789" })
	for _, stream := range []bool{false, true} {
		var err error
		if stream {
			_, err = p.ChatStream(context.Background(), request(t, "yandexgpt", true, adaptertest.HelloBody))
		} else {
			_, err = p.Chat(context.Background(), request(t, "yandexgpt", false, adaptertest.HelloBody))
		}
		e := adaptertest.AsError(t, err, 502, "upstream_error", true)
		if !strings.Contains(e.Message, "credentials") {
			t.Errorf("message %q does not say the credentials were refused", e.Message)
		}
		for _, part := range []string{"AQV", "6789", "Unknown api key"} {
			if strings.Contains(e.Message, part) || strings.Contains(e.Error(), part) {
				t.Errorf("error %q leaks %q", e.Message, part)
			}
		}
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
			body:        `{"messages":[{"role":"user","content":"Hello there, how are you?"}],"stream":true,"stream_options":{"include_usage":true}}`,
			wantContent: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			wantFinish:  "stop",
			wantUsage:   shlyuz.Usage{PromptTokens: 6, CompletionTokens: 8, TotalTokens: 14},
		},
		{
			name:        "client did not ask usage",
			body:        adaptertest.HelloBody,
			wantContent: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			wantFinish:  "stop",
			wantUsage:   shlyuz.Usage{PromptTokens: 6, CompletionTokens: 8, TotalTokens: 14},
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
			u := startFake(t, fake.Options{ReplyTokens: 8, APIKey: apiKey})
			p := u.provider(t, nil)
			req := request(t, "yandexgpt", true, tc.body)
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
					if i != len(events)-1 {
						t.Errorf("finish on event %d of %d", i, len(events))
					}
					finish = ev.FinishReason
				}
				if ev.Usage != nil {
					usage = ev.Usage
				}
				var c adaptertest.Chunk
				if err := json.Unmarshal(ev.Data, &c); err != nil {
					t.Fatalf("event %d: %v: %s", i, err, ev.Data)
				}
				if c.ID != "gen-abc" || c.Model != "yandex/yandexgpt" || c.Object != "chat.completion.chunk" {
					t.Errorf("event %d: id %q model %q object %q", i, c.ID, c.Model, c.Object)
				}
				if clientAsked != (string(c.Usage) == "null") {
					t.Errorf("event %d: usage member %s, client asked %v", i, c.Usage, clientAsked)
				}
				if (i == 0) != (c.Choices[0].Delta.Role == "assistant") {
					t.Errorf("event %d: role %q", i, c.Choices[0].Delta.Role)
				}
				content.WriteString(c.Choices[0].Delta.Text())
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
				t.Errorf("CompletionTokens add up to %d, want %d", tokens, tc.wantUsage.CompletionTokens)
			}
			s := lastSent(t, u)
			if !s.CompletionOptions.Stream {
				t.Errorf("sent stream false")
			}
			if tc.maxTokens > 0 && string(s.CompletionOptions.MaxTokens) != `"3"` {
				t.Errorf("sent maxTokens %s", s.CompletionOptions.MaxTokens)
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
	st, err := p.ChatStream(context.Background(), request(t, "fault-nousage", true, adaptertest.HelloBody))
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
	resp, err := p.Chat(context.Background(), request(t, "fault-nousage", false, adaptertest.HelloBody))
	if err != nil || resp.Usage != (shlyuz.Usage{}) {
		t.Errorf("Chat = %+v, %v; want no usage", resp, err)
	}
}

// TestTools runs a tool round trip: the call, then the result sent back as a
// toolResultList named after the call.
func TestTools(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 4})
	p := u.provider(t, nil)
	tools := `"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`
	resp, err := p.Chat(context.Background(), request(t, "yandexgpt", false,
		`{"messages":[{"role":"user","content":"Weather in Moscow?"}],`+tools+`}`))
	if err != nil {
		t.Fatal(err)
	}
	c := adaptertest.OnlyChoice(t, resp)
	if len(c.Message.ToolCalls) != 1 {
		t.Fatalf("choices %s", resp.Choices)
	}
	call := c.Message.ToolCalls[0]
	if call.ID == "" || call.Type != "function" || call.Function.Name != "get_weather" ||
		call.Function.Arguments != fake.ToolArguments || c.Message.Content != nil || resp.FinishReason != "tool_calls" {
		t.Errorf("reply %s finish %q", resp.Choices, resp.FinishReason)
	}
	if resp.Usage.CompletionTokens != fake.ToolCallTokens {
		t.Errorf("usage %+v", resp.Usage)
	}
	if s := lastSent(t, u); len(s.Tools) != 1 || !strings.Contains(string(s.Tools[0]), `"function":{"name":"get_weather"`) {
		t.Errorf("sent tools %s", s.Tools)
	}

	followUp := `{"messages":[{"role":"user","content":"Weather in Moscow?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"` + call.ID + `","type":"function","function":{"name":"get_weather","arguments":` + jsonString(call.Function.Arguments) + `}}]},` +
		`{"role":"tool","tool_call_id":"` + call.ID + `","content":"-5 and snow"}],` + tools + `}`
	st, err := p.ChatStream(context.Background(), request(t, "yandexgpt", true, followUp))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := adaptertest.ReadAll(st)
	if err != io.EOF || len(events) == 0 || events[len(events)-1].FinishReason != "stop" {
		t.Fatalf("follow-up: %d events, err %v", len(events), err)
	}
	s := lastSent(t, u)
	if len(s.Messages) != 3 ||
		string(s.Messages[1]) != `{"role":"assistant","toolCallList":{"toolCalls":[{"functionCall":{"name":"get_weather","arguments":{"city":"Moscow"}}}]}}` ||
		string(s.Messages[2]) != `{"role":"user","toolResultList":{"toolResults":[{"functionResult":{"name":"get_weather","content":"-5 and snow"}}]}}` {
		t.Errorf("sent messages:\n%s", s.Messages)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRefusedBeforeUpstream checks requests the native API cannot serve never go upstream.
func TestRefusedBeforeUpstream(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	for name, body := range map[string]string{
		"image":       `{"messages":[{"role":"user","content":[{"type":"text","text":"What is it?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`,
		"temperature": `{"messages":[{"role":"user","content":"hi"}],"temperature":2}`,
		"n":           `{"messages":[{"role":"user","content":"hi"}],"n":3}`,
	} {
		for _, stream := range []bool{false, true} {
			var err error
			if stream {
				_, err = p.ChatStream(context.Background(), request(t, "yandexgpt", true, body))
			} else {
				_, err = p.Chat(context.Background(), request(t, "yandexgpt", false, body))
			}
			e := adaptertest.AsError(t, err, 400, "invalid_value", false)
			if name == "image" && !strings.Contains(e.Message, `"yandex/yandexgpt"`) {
				t.Errorf("image refusal %q does not name the model", e.Message)
			}
		}
	}
	if n := u.Fake.Requests(); n != 0 {
		t.Errorf("%d requests reached the upstream", n)
	}
}

// TestFaultsBeforeFirstByte checks the mapping of every native failure that
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
		{fault: "500", status: 502, code: "upstream_error", upstream: true, msg: "HTTP 500"},
		{fault: "502", status: 502, code: "upstream_error", upstream: true},
		{fault: "503", status: 502, code: "upstream_error", upstream: true},
		{fault: "504", status: 504, code: "upstream_timeout", upstream: true},
		{fault: "429", status: 429, code: "rate_limited", upstream: true, retryAfter: 2 * time.Second, msg: "RequestsPerSecond"},
		{fault: "quota", status: 502, code: "upstream_error", upstream: true, msg: "quota is exhausted"},
		{fault: "402", status: 502, code: "upstream_error", upstream: true},
		{fault: "408", status: 504, code: "upstream_timeout", upstream: true},
		{fault: "400", status: 400, code: "invalid_value", upstream: false, msg: "number of input tokens"},
		{fault: "413", status: 400, code: "invalid_value", upstream: false},
		{fault: "404", status: 502, code: "upstream_error", upstream: true, msg: "model"},
		{fault: "401", status: 502, code: "upstream_error", upstream: true, msg: "UNAUTHENTICATED"},
		{fault: "403", status: 502, code: "upstream_error", upstream: true, msg: "PERMISSION_DENIED"},
	} {
		for _, stream := range []bool{false, true} {
			name := tc.fault
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				p := u.provider(t, nil)
				req := request(t, "fault-"+tc.fault, stream, adaptertest.HelloBody)
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
				if strings.Contains(e.Message, "AQVN") || strings.Contains(e.Message, folder) {
					t.Errorf("message %q leaks a credential or the folder", e.Message)
				}
			})
		}
	}
}

func TestRetryAfterDefault(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"grpcCode":8,"httpCode":429,"message":"ai.textGenerationCompletionSessionsCount.count gauge quota limit exceed: allowed 1 requests","httpStatus":"Too Many Requests"}}`)
	}))
	defer ts.Close()
	p, err := yandex.New(shlyuz.UpstreamConfig{BaseURL: ts.URL, FolderID: folder, APIKey: apiKey})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), request(t, "yandexgpt", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 429, "rate_limited", true)
	if e.RetryAfter != time.Second {
		t.Errorf("RetryAfter = %v, want the 1s default", e.RetryAfter)
	}
}

func TestMalformedReply(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	_, err := p.Chat(context.Background(), request(t, "fault-malformed", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "malformed") {
		t.Errorf("message %q", e.Message)
	}
	_, err = p.Chat(context.Background(), request(t, "fault-cut", false, adaptertest.HelloBody))
	e = adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "broke off") {
		t.Errorf("message %q", e.Message)
	}
	_, err = p.Chat(context.Background(), request(t, "fault-midstream-error", false, adaptertest.HelloBody))
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
		{"midstream-error", "Internal server error"},
		{"malformed", "malformed"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			p := u.provider(t, nil)
			st, err := p.ChatStream(context.Background(), request(t, "fault-"+tc.fault, true, adaptertest.HelloBody))
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
			var content strings.Builder
			for _, ev := range events {
				tokens += ev.CompletionTokens
				var c adaptertest.Chunk
				_ = json.Unmarshal(ev.Data, &c)
				content.WriteString(c.Choices[0].Delta.Text())
			}
			if tokens != 4 || content.String() != "tok0 tok1 tok2 tok3" { // the fake fails half way through 8 words
				t.Errorf("%d tokens, %q before the failure; want 4 words", tokens, content.String())
			}
			if _, err2 := st.Next(); err2 != err {
				t.Errorf("Next after the failure = %v, want the same error", err2)
			}
		})
	}
}

// TestTransport runs the checks of timeouts, cancellation and connections
// that every adapter passes.
func TestTransport(t *testing.T) {
	adaptertest.Transport(t, adaptertest.Target{
		Provider: func(t *testing.T, u *adaptertest.Upstream, mod func(*shlyuz.UpstreamConfig)) shlyuz.Provider {
			return (&upstream{u}).provider(t, mod)
		},
		Request: request,
		Model:   "yandexgpt",
		Faults:  "",
		Lead:    2, // two words
		Closed:  yandex.ErrStreamClosed,
	})
}
