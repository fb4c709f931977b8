package gemini

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
)

// TestRequestGolden checks the translation of a client body into the native
// request: the URL path and the generateContent body, or the client error.
func TestRequestGolden(t *testing.T) {
	p, err := New(shlyuz.UpstreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	golden.Run(t, "request", ".json", func(t *testing.T, c golden.Case) []byte {
		req := golden.LoadRequest(t, c.Path, "google/model")
		var out bytes.Buffer
		body, berr := buildBody(req)
		if berr != nil {
			out.WriteString(golden.Describe(t, berr))
		} else {
			if !json.Valid(body) {
				t.Fatalf("built body is not valid JSON: %s", body)
			}
			if bytes.Contains(body, []byte(`"text":""`)) || bytes.Contains(body, []byte(`"parts":[]`)) {
				t.Errorf("an empty part or content: %s", body)
			}
			fmt.Fprintf(&out, "POST %s\n%s\n", strings.TrimPrefix(p.endpoint(req.UpstreamModel, req.Stream), DefaultBaseURL), golden.Indent(t, body))
		}
		return out.Bytes()
	})
}

// TestReplyGolden feeds recorded generateContent replies through Chat over HTTP.
func TestReplyGolden(t *testing.T) {
	golden.Run(t, "reply", ".json", func(t *testing.T, c golden.Case) []byte {
		url := golden.Serve(t, c.Path, "application/json; charset=UTF-8")
		p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: url})
		if err != nil {
			t.Fatal(err)
		}
		defer p.CloseIdleConnections()
		p.now = func() time.Time { return time.Unix(1760000000, 0) }
		resp, err := p.Chat(context.Background(), withReasoning(c.Name, goldenRequest(false)))
		var out bytes.Buffer
		if err != nil {
			out.WriteString(golden.Describe(t, err))
		} else {
			u, _ := json.Marshal(resp.Usage)
			fmt.Fprintf(&out, "created=%d finish=%q usage=%s\n%s\n", resp.Created, resp.FinishReason, u, golden.Indent(t, resp.Choices))
		}
		return out.Bytes()
	})
}

// withReasoning asks for the reasoning text in the cases named thoughts_shown.
func withReasoning(name string, req *shlyuz.UpstreamRequest) *shlyuz.UpstreamRequest {
	if name == "thoughts_shown" {
		req.Fields["reasoning"] = json.RawMessage(`{"effort":"medium"}`)
	}
	return req
}

func goldenRequest(stream bool) *shlyuz.UpstreamRequest {
	return golden.ChatRequest("google/model", "gemini-2.5-flash", stream, false)
}

// TestStreamGolden feeds recorded alt=sse streams through ChatStream over
// HTTP and checks the events it emits.
func TestStreamGolden(t *testing.T) {
	golden.Run(t, "stream", ".sse", func(t *testing.T, c golden.Case) []byte {
		url := golden.Serve(t, c.Path, "text/event-stream")
		p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: url})
		if err != nil {
			t.Fatal(err)
		}
		defer p.CloseIdleConnections()
		p.now = func() time.Time { return time.Unix(1760000000, 0) }
		st, err := p.ChatStream(context.Background(), withReasoning(c.Name, goldenRequest(true)))
		if err != nil {
			t.Fatal(err)
		}
		return golden.Events(t, "", st, func(err error) string { return golden.Describe(t, err) })
	})
}

// TestErrorGolden maps recorded error replies: testdata/error/*.http holds a
// status line ("HTTP 429"), header lines, a blank line and the body. Chat and
// ChatStream must map them alike.
func TestErrorGolden(t *testing.T) {
	golden.Run(t, "error", ".http", func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		status, header, body := parseHTTPCase(t, raw)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for k, vs := range header {
				for _, v := range vs {
					w.Header().Add(k, v)
				}
			}
			w.WriteHeader(status)
			_, _ = w.Write(body)
		}))
		defer ts.Close()
		p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: ts.URL, APIKey: "AIzaSy-golden-key"})
		if err != nil {
			t.Fatal(err)
		}
		defer p.CloseIdleConnections()
		p.now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
		_, err = p.Chat(context.Background(), goldenRequest(false))
		got := golden.Describe(t, err)
		_, serr := p.ChatStream(context.Background(), goldenRequest(true))
		if s := golden.Describe(t, serr); s != got {
			t.Errorf("ChatStream maps it otherwise:\n%s\nthan Chat:\n%s", s, got)
		}
		e := golden.AsError(t, err)
		if strings.Contains(e.Message, "AIzaSy") || (e.Cause != nil && strings.Contains(e.Cause.Error(), "AIzaSy")) {
			t.Errorf("the error leaks the key: %q (%v)", e.Message, e.Cause)
		}
		return []byte(got)
	})
}

func parseHTTPCase(t *testing.T, raw []byte) (int, http.Header, []byte) {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(raw))
	line, _ := br.ReadString('\n')
	status, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "HTTP ")))
	if err != nil {
		t.Fatalf("status line %q", line)
	}
	h := http.Header{}
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line == "" || err != nil {
			break
		}
		k, v, _ := strings.Cut(line, ":")
		h.Add(k, strings.TrimSpace(v))
	}
	body, _ := io.ReadAll(br)
	return status, h, body
}
