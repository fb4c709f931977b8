package gigachat

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// The fake's GigaChat endpoints, under its root.
const (
	fakeAPI   = "/gigachat/api/v1"
	fakeOAuth = "/gigachat/api/v2/oauth"
)

// testKey is the authorization key the tests' fakes expect.
const testKey = "Y2xpZW50LWlkOmNsaWVudC1zZWNyZXQ="

// upstream is a fake GigaChat on loopback.
type upstream struct {
	fake *fake.Server
	ts   *httptest.Server
}

// startFake serves the fake, optionally through wrap (to watch or bend requests).
func startFake(t *testing.T, opts fake.Options, wrap func(http.Handler) http.Handler) *upstream {
	t.Helper()
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	u := &upstream{fake: fake.New(opts)}
	var h http.Handler = u.fake
	if wrap != nil {
		h = wrap(h)
	}
	u.ts = httptest.NewServer(h)
	t.Cleanup(u.ts.Close)
	t.Cleanup(u.fake.Close) // runs first: releases held handlers
	return u
}

func (u *upstream) config() shlyuz.UpstreamConfig {
	return shlyuz.UpstreamConfig{
		Name:     "giga",
		Protocol: "gigachat",
		BaseURL:  u.ts.URL + fakeAPI,
		AuthURL:  u.ts.URL + fakeOAuth,
		APIKey:   testKey,
	}
}

func (u *upstream) provider(t *testing.T, opts Options, mod func(*shlyuz.UpstreamConfig)) *Provider {
	t.Helper()
	cfg := u.config()
	if mod != nil {
		mod(&cfg)
	}
	p, err := NewWithOptions(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p
}

// request builds an UpstreamRequest from a client body.
func request(t *testing.T, model string, stream bool, body string) *shlyuz.UpstreamRequest {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &fields); err != nil {
		t.Fatalf("client body: %v", err)
	}
	return &shlyuz.UpstreamRequest{
		GenerationID:  "gen-abc",
		Model:         "public/" + model,
		UpstreamModel: model,
		Fields:        fields,
		Stream:        stream,
	}
}

const helloBody = `{"model":"x","messages":[{"role":"user","content":"Hello there, how are you?"}]}`

// asError checks err is an *Error with the status, code and fault.
func asError(t *testing.T, err error, status int, code string, fault bool) *shlyuz.Error {
	t.Helper()
	var e *shlyuz.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if e.Status != status || e.Code != code || e.UpstreamFault != fault {
		t.Fatalf("error = status %d code %s fault %v (%q), want %d %s %v", e.Status, e.Code, e.UpstreamFault, e.Message, status, code, fault)
	}
	return e
}

// sentBody is the last chat request the fake received.
func sentBody(t *testing.T, u *upstream) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(u.fake.LastRequest(), &m); err != nil {
		t.Fatalf("last request %q: %v", u.fake.LastRequest(), err)
	}
	return m
}

// choice0 is the first choice of a reply.
type choice0 struct {
	Message struct {
		Role      string  `json:"role"`
		Content   *string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
}

func firstChoice(t *testing.T, resp *shlyuz.ChatResponse) choice0 {
	t.Helper()
	var cs []choice0
	if err := json.Unmarshal(resp.Choices, &cs); err != nil || len(cs) == 0 {
		t.Fatalf("choices %s: %v", resp.Choices, err)
	}
	return cs[0]
}
