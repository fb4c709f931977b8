// Package adaptertest holds what the provider adapters' tests share: a fake
// upstream (providers/fake) on loopback that counts its connections, gateway
// requests built from client bodies, a record of the requests an adapter
// sent, the checking of *shlyuz.Error values, and the reading of replies and
// streams.
package adaptertest

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// HelloBody is a client's body with one short user message.
const HelloBody = `{"model":"x","messages":[{"role":"user","content":"Hello there, how are you?"}]}`

// Upstream is a fake upstream on loopback.
type Upstream struct {
	Fake  *fake.Server
	TS    *httptest.Server
	Conns atomic.Int64 // TCP connections the server accepted
}

// StartFake serves a fake made with opts until the test ends; wrap, when not
// nil, stands in front of it (to watch or bend requests).
func StartFake(t *testing.T, opts fake.Options, wrap func(http.Handler) http.Handler) *Upstream {
	t.Helper()
	u := &Upstream{Fake: fake.New(opts)}
	var h http.Handler = u.Fake
	if wrap != nil {
		h = wrap(h)
	}
	u.TS = httptest.NewUnstartedServer(h)
	u.TS.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			u.Conns.Add(1)
		}
	}
	u.TS.Start()
	t.Cleanup(u.TS.Close)
	t.Cleanup(u.Fake.Close) // runs first: releases hung handlers
	return u
}

// SentBody is the body of the last request the fake received, a JSON object.
func (u *Upstream) SentBody(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(u.Fake.LastRequest(), &m); err != nil {
		t.Fatalf("last request %q: %v", u.Fake.LastRequest(), err)
	}
	return m
}

// Post sends body to url as a raw POST, with the headers of each map in turn
// (an empty value removes the header), and closes the reply's body when the
// test ends.
func Post(t *testing.T, url, body string, headers ...map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for _, h := range headers {
		for k, v := range h {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Request is what the gateway hands an adapter for a client's body: the
// generation gen-abc, the public model "public/<model>" routed to the
// upstream model model.
func Request(t *testing.T, model string, stream bool, body string) *shlyuz.UpstreamRequest {
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

// AsError checks that err is an *Error with the status, code and fault.
func AsError(t *testing.T, err error, status int, code string, fault bool) *shlyuz.Error {
	t.Helper()
	var e *shlyuz.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if e.Status != status || e.Code != code || e.UpstreamFault != fault {
		t.Fatalf("error = status %d code %s fault %v (%q, cause %v), want %d %s %v", e.Status, e.Code, e.UpstreamFault, e.Message, e.Cause, status, code, fault)
	}
	return e
}

// ReadAll drains a stream: its events, and the error that ended it.
func ReadAll(st shlyuz.ChatStream) (events []shlyuz.StreamEvent, err error) {
	for {
		ev, err := st.Next()
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

// Choice is an OpenAI choice of a non-streamed reply.
type Choice struct {
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// Message is a choice's message.
type Message struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls"`
}

// Text is the message's content, "" when it has none.
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// ToolCall is a tool call of a message, or a piece of one in a chunk's delta.
type ToolCall struct {
	Index    int    `json:"index"` // in a delta
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// OnlyChoice is the one choice of a reply; a reply with another number of
// choices fails the test.
func OnlyChoice(t *testing.T, resp *shlyuz.ChatResponse) Choice {
	t.Helper()
	var cs []Choice
	if err := json.Unmarshal(resp.Choices, &cs); err != nil || len(cs) != 1 {
		t.Fatalf("choices %s: %v", resp.Choices, err)
	}
	return cs[0]
}

// Chunk is an OpenAI chat.completion.chunk, the data of a stream event.
type Chunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Usage   json.RawMessage `json:"usage"`
	Choices []struct {
		Index        int     `json:"index"`
		Delta        Delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

// Delta is what a chunk adds to a choice.
type Delta struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls"`
}

// Text is the delta's content, "" when it has none.
func (d Delta) Text() string {
	if d.Content == nil {
		return ""
	}
	return *d.Content
}
