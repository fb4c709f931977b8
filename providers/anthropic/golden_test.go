package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/golden"
)

// describeError renders an error for a golden file.
func describeError(t *testing.T, err error) string {
	t.Helper()
	var e *shlyuz.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v (%T) is not an *Error", err, err)
	}
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
	for _, c := range golden.Cases(t, "request", ".json") {
		name := c.Name
		t.Run(name, func(t *testing.T) {
			req := golden.LoadRequest(t, c.Path, "public/model")
			body, clientUsage, err := buildBody(req, req.Stream)
			if err != nil {
				golden.Check(t, "request/"+name+".golden", []byte(describeError(t, err)))
				return
			}
			out := fmt.Appendf(nil, "client_usage=%v\n", clientUsage)
			out = append(out, golden.Indent(t, body)...)
			out = append(out, '\n')
			golden.Check(t, "request/"+name+".golden", out)

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
		})
	}
}

// TestResponseGolden checks the translation of Anthropic Messages into OpenAI choices.
func TestResponseGolden(t *testing.T) {
	for _, c := range golden.Cases(t, "response", ".json") {
		name := c.Name
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := decodeReply(raw)
			if err != nil {
				golden.Check(t, "response/"+name+".golden", []byte(describeError(t, err)))
				return
			}
			u, _ := json.Marshal(r.Usage)
			out := fmt.Appendf(nil, "finish=%q usage=%s\n", r.FinishReason, u)
			out = append(out, golden.Indent(t, r.Choices)...)
			out = append(out, '\n')
			golden.Check(t, "response/"+name+".golden", out)
		})
	}
}

// clientAskedUsage are the stream cases whose client sent stream_options.include_usage=true.
var clientAskedUsage = map[string]bool{
	"tool_use": true,
}

// TestStreamGolden feeds recorded-shape Anthropic streams through ChatStream
// over HTTP and checks the events it emits.
func TestStreamGolden(t *testing.T) {
	for _, c := range golden.Cases(t, "stream", ".sse") {
		name := c.Name
		t.Run(name, func(t *testing.T) {
			url := golden.Serve(t, c.Path, "text/event-stream")
			p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: url})
			if err != nil {
				t.Fatal(err)
			}
			defer p.CloseIdleConnections()
			p.now = func() time.Time { return time.Unix(1760000000, 0) }

			fields := map[string]json.RawMessage{
				"messages": json.RawMessage(`[{"role":"user","content":"hi"}]`),
			}
			if clientAskedUsage[name] {
				fields["stream_options"] = json.RawMessage(`{"include_usage":true}`)
			}
			st, err := p.ChatStream(context.Background(), &shlyuz.UpstreamRequest{
				GenerationID: "gen-golden", Model: "public/model", UpstreamModel: "m", Fields: fields, MaxTokens: 100, Stream: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()

			var out bytes.Buffer
			fmt.Fprintf(&out, "client_usage=%v\n", clientAskedUsage[name])
			golden.WriteEvents(t, &out, st, func(err error) string { return describeError(t, err) })
			golden.Check(t, "stream/"+name+".golden", out.Bytes())
		})
	}
}
