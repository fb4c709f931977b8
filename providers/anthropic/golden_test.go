package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// describeError renders an error for a golden file.
func describeError(t *testing.T, err error) string {
	t.Helper()
	e := golden.AsError(t, err)
	param := ""
	if e.Param != nil {
		param = " param=" + *e.Param
	}
	return fmt.Sprintf("error: status=%d code=%s upstream_fault=%v%s message=%q\n", e.Status, e.Code, e.UpstreamFault, param, e.Message)
}

// TestRequestGolden checks the translation of a client's OpenAI body into
// the Anthropic body, and that the fake, which validates requests as the
// real API does, accepts every translated body.
func TestRequestGolden(t *testing.T) {
	f := fake.New(fake.Options{})
	ts := httptest.NewServer(f)
	defer ts.Close()
	defer f.Close()
	golden.Run(t, "request", ".json", func(t *testing.T, c golden.Case) []byte {
		req := golden.LoadRequest(t, c.Path, "public/model")
		body, o, err := buildBody(req, req.Stream)
		if err != nil {
			return []byte(describeError(t, err))
		}
		out := fmt.Appendf(nil, "client_usage=%v json_tool=%q reasoning=%v\n", o.clientUsage, o.jsonTool, o.reasoning)
		out = append(out, golden.Indent(t, body)...)
		out = append(out, '\n')

		hreq, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/messages", bytes.NewReader(body))
		hreq.Header.Set("Anthropic-Version", DefaultAPIVersion)
		resp, err := http.DefaultClient.Do(hreq)
		if err != nil {
			t.Fatal(err)
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the fake refused the body: %d %s", resp.StatusCode, reply)
		}
		return out
	})
}

// replyOptions are the reading options of response and stream cases whose
// request asked for reasoning or a response_format.
var replyOptions = map[string]options{
	"thinking_shown": {reasoning: true},
	"json_tool":      {jsonTool: "answer"},
}

// streamFields are request fields of the stream cases that need them.
var streamFields = map[string]map[string]json.RawMessage{
	"thinking_shown": {"reasoning": json.RawMessage(`{"max_tokens":2000}`)},
	"json_tool":      {"response_format": json.RawMessage(`{"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}`)},
}

// TestResponseGolden checks the translation of Anthropic Messages into OpenAI choices.
func TestResponseGolden(t *testing.T) {
	golden.Run(t, "response", ".json", func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := decodeReply(raw, replyOptions[c.Name])
		if err != nil {
			return []byte(describeError(t, err))
		}
		u, _ := json.Marshal(r.Usage)
		out := fmt.Appendf(nil, "finish=%q usage=%s\n", r.FinishReason, u)
		out = append(out, golden.Indent(t, r.Choices)...)
		return append(out, '\n')
	})
}

// clientAskedUsage are the stream cases whose client sent stream_options.include_usage=true.
var clientAskedUsage = map[string]bool{
	"tool_use": true,
}

// TestStreamGolden feeds recorded-shape Anthropic streams through ChatStream
// over HTTP and checks the events it emits.
func TestStreamGolden(t *testing.T) {
	golden.Run(t, "stream", ".sse", func(t *testing.T, c golden.Case) []byte {
		url := golden.Serve(t, c.Path, "text/event-stream")
		p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: url})
		if err != nil {
			t.Fatal(err)
		}
		defer p.CloseIdleConnections()
		p.now = func() time.Time { return time.Unix(1760000000, 0) }

		req := golden.ChatRequest("public/model", "m", true, clientAskedUsage[c.Name])
		req.MaxTokens = 100
		if extra := streamFields[c.Name]; extra != nil {
			req.MaxTokens = 4000
			for k, v := range extra {
				req.Fields[k] = v
			}
		}
		st, err := p.ChatStream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return golden.Events(t, fmt.Sprintf("client_usage=%v\n", clientAskedUsage[c.Name]), st, func(err error) string { return describeError(t, err) })
	})
}
