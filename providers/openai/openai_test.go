package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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

	adaptertest.CheckSent(t, u.SentBody(t), map[string]string{
		"model": `"fake/model"`, "max_tokens": "100", "stream": "false",
		"temperature": "0.2",
	}, "provider", "stream_options", "max_completion_tokens", "x_unknown")
	h := u.Fake.LastHeader()
	if h.Get("Authorization") != "Bearer sk-upstream-secret" || h.Get("OpenAI-Project") != "proj_1" ||
		h.Get("Content-Type") != "application/json" {
		t.Errorf("headers = %v", h)
	}
}

func TestChatStream(t *testing.T) {
	for _, tc := range []adaptertest.StreamCase{
		adaptertest.UsageAsked,
		{
			Name:    "client did not ask usage",
			Body:    `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe this picture please"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}]}`,
			Content: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			Finish:  "stop",
			Usage:   shlyuz.Usage{PromptTokens: 7 + 85, CompletionTokens: 8, TotalTokens: 100},
		},
		adaptertest.Capped,
	} {
		t.Run(tc.Name, func(t *testing.T) {
			u := startFake(t, fake.Options{ReplyTokens: 8})
			p := u.provider(t, nil)
			req := adaptertest.Request(t, "fake/model", true, tc.Body)
			req.MaxTokens = tc.MaxTokens
			st, err := p.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			s := tc.Check(t, st, func(i int, ev shlyuz.StreamEvent, c *adaptertest.Chunk) {
				if c == nil {
					return
				}
				adaptertest.CheckChunk(t, i, c, "public/fake/model", tc.ClientAsked())
				if i == 0 && c.Choices[0].Delta.Role != "assistant" {
					t.Errorf("first chunk has no role: %s", ev.Data)
				}
			})
			for i, ev := range s.Events {
				if ev.Data == nil && (ev.Usage == nil || i != len(s.Events)-1) {
					t.Errorf("event %d has neither data nor usage, or is not last", i)
				}
			}

			sent := u.SentBody(t)
			if string(sent["stream"]) != "true" || !strings.Contains(string(sent["stream_options"]), `"include_usage":true`) {
				t.Errorf("sent stream %s stream_options %s", sent["stream"], sent["stream_options"])
			}
			if tc.MaxTokens > 0 && string(sent["max_tokens"]) != "3" {
				t.Errorf("sent max_tokens %s", sent["max_tokens"])
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
	adaptertest.NoUsage(t, adaptertest.ReadToEnd(t, st), 16)
}

// TestFaultsBeforeFirstByte checks the mapping of every upstream failure that
// comes before the stream starts, for Chat and ChatStream alike.
func TestFaultsBeforeFirstByte(t *testing.T) {
	u := startFake(t, fake.Options{})
	adaptertest.Faults(t, openai.BeforeFirstByte, adaptertest.ChatAndStream, func(t *testing.T, fault string, stream bool) error {
		return adaptertest.CallError(t, u.provider(t, nil), adaptertest.Request(t, "fake/fault-"+fault, stream, adaptertest.HelloBody))
	}, nil)
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
	adaptertest.NotLeaked(t, e, "sk-", "6789", "Incorrect")
}

// TestMalformedReply: a reply that is not JSON or breaks off is the upstream's fault.
func TestMalformedReply(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	adaptertest.Faults(t, adaptertest.BrokenReplies, adaptertest.ChatOnly, func(t *testing.T, fault string, stream bool) error {
		return adaptertest.CallError(t, p, adaptertest.Request(t, "fake/fault-"+fault, stream, adaptertest.HelloBody))
	}, nil)
}

// TestStreamFaults checks failures after the stream started: Next returns them.
func TestStreamFaults(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8})
	adaptertest.StreamFaults(t, []adaptertest.StreamFault{
		{Fault: "cut", Msg: "broke off"},
		{Fault: "midstream-error", Msg: "The server had an error"},
		{Fault: "malformed", Msg: "malformed"},
	}, 4, func(t *testing.T, fault string) (shlyuz.ChatStream, error) { // the fake fails half way through 8 tokens
		return u.provider(t, nil).ChatStream(context.Background(), adaptertest.Request(t, "fake/fault-"+fault, true, adaptertest.HelloBody))
	}, nil)
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
	events := adaptertest.ReadToEnd(t, st)
	if len(events) != 1 {
		t.Fatalf("%d events", len(events))
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
