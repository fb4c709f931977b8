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
	for _, stream := range adaptertest.ChatAndStream {
		e := adaptertest.AsError(t, adaptertest.CallError(t, p, request(t, "yandexgpt", stream, adaptertest.HelloBody)), 502, "upstream_error", true)
		if !strings.Contains(e.Message, "credentials") {
			t.Errorf("message %q does not say the credentials were refused", e.Message)
		}
		adaptertest.NotLeaked(t, e, "AQV", "6789", "Unknown api key")
	}
}

func TestChatStream(t *testing.T) {
	for _, tc := range []adaptertest.StreamCase{
		adaptertest.UsageAsked,
		{
			Name:    "client did not ask usage",
			Body:    adaptertest.HelloBody,
			Content: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			Finish:  "stop",
			Usage:   shlyuz.Usage{PromptTokens: 6, CompletionTokens: 8, TotalTokens: 14},
		},
		adaptertest.Capped,
	} {
		t.Run(tc.Name, func(t *testing.T) {
			u := startFake(t, fake.Options{ReplyTokens: 8, APIKey: apiKey})
			p := u.provider(t, nil)
			req := request(t, "yandexgpt", true, tc.Body)
			req.MaxTokens = tc.MaxTokens
			st, err := p.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			s := tc.Check(t, st, func(i int, ev shlyuz.StreamEvent, c *adaptertest.Chunk) {
				if c == nil {
					t.Fatalf("event %d has no data", i)
				}
				adaptertest.CheckChunk(t, i, c, "yandex/yandexgpt", tc.ClientAsked())
				if tc.ClientAsked() != (string(c.Usage) == "null") {
					t.Errorf("event %d: usage member %s, client asked %v", i, c.Usage, tc.ClientAsked())
				}
				if (i == 0) != (c.Choices[0].Delta.Role == "assistant") {
					t.Errorf("event %d: role %q", i, c.Choices[0].Delta.Role)
				}
			})
			for i, ev := range s.Events {
				if ev.FinishReason != "" && i != len(s.Events)-1 {
					t.Errorf("finish on event %d of %d", i, len(s.Events))
				}
			}
			sent := lastSent(t, u)
			if !sent.CompletionOptions.Stream {
				t.Errorf("sent stream false")
			}
			if tc.MaxTokens > 0 && string(sent.CompletionOptions.MaxTokens) != `"3"` {
				t.Errorf("sent maxTokens %s", sent.CompletionOptions.MaxTokens)
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
	adaptertest.NoUsage(t, adaptertest.ReadToEnd(t, st), 16)
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

	followUp := adaptertest.FollowUp("Weather in Moscow?", call.ID, call.Function.Arguments, "-5 and snow", tools)
	st, err := p.ChatStream(context.Background(), request(t, "yandexgpt", true, followUp))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events := adaptertest.ReadToEnd(t, st)
	if len(events) == 0 || events[len(events)-1].FinishReason != "stop" {
		t.Fatalf("follow-up: %d events", len(events))
	}
	s := lastSent(t, u)
	if len(s.Messages) != 3 ||
		string(s.Messages[1]) != `{"role":"assistant","toolCallList":{"toolCalls":[{"functionCall":{"name":"get_weather","arguments":{"city":"Moscow"}}}]}}` ||
		string(s.Messages[2]) != `{"role":"user","toolResultList":{"toolResults":[{"functionResult":{"name":"get_weather","content":"-5 and snow"}}]}}` {
		t.Errorf("sent messages:\n%s", s.Messages)
	}
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
	adaptertest.Faults(t, []adaptertest.Fault{
		{Fault: "500", Status: 502, Code: "upstream_error", Upstream: true, Msg: "HTTP 500"},
		{Fault: "502", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "503", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "504", Status: 504, Code: "upstream_timeout", Upstream: true},
		{Fault: "429", Status: 429, Code: "rate_limited", Upstream: true, RetryAfter: 2 * time.Second, Msg: "RequestsPerSecond"},
		{Fault: "quota", Status: 502, Code: "upstream_error", Upstream: true, Msg: "quota is exhausted"},
		{Fault: "402", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "408", Status: 504, Code: "upstream_timeout", Upstream: true},
		{Fault: "400", Status: 400, Code: "invalid_value", Upstream: false, Msg: "number of input tokens"},
		{Fault: "413", Status: 400, Code: "invalid_value", Upstream: false},
		{Fault: "404", Status: 502, Code: "upstream_error", Upstream: true, Msg: "model"},
		{Fault: "401", Status: 502, Code: "upstream_error", Upstream: true, Msg: "UNAUTHENTICATED"},
		{Fault: "403", Status: 502, Code: "upstream_error", Upstream: true, Msg: "PERMISSION_DENIED"},
	}, adaptertest.ChatAndStream, func(t *testing.T, fault string, stream bool) error {
		return adaptertest.CallError(t, u.provider(t, nil), request(t, "fault-"+fault, stream, adaptertest.HelloBody))
	}, func(t *testing.T, _ adaptertest.Fault, e *shlyuz.Error) {
		if strings.Contains(e.Message, "AQVN") || strings.Contains(e.Message, folder) {
			t.Errorf("message %q leaks a credential or the folder", e.Message)
		}
	})
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
	adaptertest.Faults(t, adaptertest.BrokenReplies, adaptertest.ChatOnly, func(t *testing.T, fault string, stream bool) error {
		return adaptertest.CallError(t, p, request(t, "fault-"+fault, stream, adaptertest.HelloBody))
	}, nil)
}

// TestStreamFaults checks failures after the stream started: Next returns them.
func TestStreamFaults(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8})
	adaptertest.StreamFaults(t, []adaptertest.StreamFault{
		{Fault: "cut", Msg: "broke off"},
		{Fault: "midstream-error", Msg: "Internal server error"},
		{Fault: "malformed", Msg: "malformed"},
	}, 4, func(t *testing.T, fault string) (shlyuz.ChatStream, error) { // the fake fails half way through 8 words
		return u.provider(t, nil).ChatStream(context.Background(), request(t, "fault-"+fault, true, adaptertest.HelloBody))
	}, func(t *testing.T, events []shlyuz.StreamEvent) {
		if got := adaptertest.Collect(t, events, nil).Content; got != "tok0 tok1 tok2 tok3" {
			t.Errorf("%q before the failure; want 4 words", got)
		}
	})
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
