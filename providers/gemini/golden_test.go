package gemini

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkGolden compares got with testdata/<path>, or rewrites it under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	path = filepath.Join("testdata", path)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// cases lists testdata/<dir>/*<ext> by name.
func cases(t *testing.T, dir, ext string) map[string]string {
	t.Helper()
	inputs, err := filepath.Glob(filepath.Join("testdata", dir, "*"+ext))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no %s cases: %v", dir, err)
	}
	m := make(map[string]string, len(inputs))
	for _, in := range inputs {
		m[strings.TrimSuffix(filepath.Base(in), ext)] = in
	}
	return m
}

// describeError renders an adapter error for a golden file.
func describeError(t *testing.T, err error) string {
	t.Helper()
	var e *shlyuz.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v (%T) is not an *Error", err, err)
	}
	param := "-"
	if e.Param != nil {
		param = *e.Param
	}
	return fmt.Sprintf("error: status=%d type=%s code=%s upstream_fault=%v retry_after=%v param=%s\n  message: %s\n",
		e.Status, e.Type, e.Code, e.UpstreamFault, e.RetryAfter, param, e.Message)
}

func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return out.Bytes()
}

// requestCase is a testdata/request/*.json input: a client body and what the gateway decided.
type requestCase struct {
	UpstreamModel string          `json:"upstream_model"`
	MaxTokens     int64           `json:"max_tokens"`
	Stream        bool            `json:"stream"`
	Body          json.RawMessage `json:"body"`
}

// TestRequestGolden checks the translation of a client body into the native
// request: the URL path and the generateContent body, or the client error.
func TestRequestGolden(t *testing.T) {
	p, err := New(shlyuz.UpstreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range cases(t, "request", ".json") {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var c requestCase
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(c.Body, &fields); err != nil {
				t.Fatalf("%s: body: %v", in, err)
			}
			req := &shlyuz.UpstreamRequest{
				GenerationID: "gen-golden", Model: "google/model", UpstreamModel: c.UpstreamModel,
				Fields: fields, MaxTokens: c.MaxTokens, Stream: c.Stream,
			}
			var out bytes.Buffer
			body, berr := buildBody(req)
			if berr != nil {
				out.WriteString(describeError(t, berr))
			} else {
				if !json.Valid(body) {
					t.Fatalf("built body is not valid JSON: %s", body)
				}
				if bytes.Contains(body, []byte(`"text":""`)) || bytes.Contains(body, []byte(`"parts":[]`)) {
					t.Errorf("an empty part or content: %s", body)
				}
				fmt.Fprintf(&out, "POST %s\n%s\n", strings.TrimPrefix(p.endpoint(c.UpstreamModel, c.Stream), DefaultBaseURL), indent(t, body))
			}
			checkGolden(t, "request/"+name+".golden", out.Bytes())
		})
	}
}

// TestReplyGolden feeds recorded generateContent replies through Chat over HTTP.
func TestReplyGolden(t *testing.T) {
	for name, in := range cases(t, "reply", ".json") {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=UTF-8")
				_, _ = w.Write(raw)
			}))
			defer ts.Close()
			p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: ts.URL})
			if err != nil {
				t.Fatal(err)
			}
			defer p.CloseIdleConnections()
			p.now = func() time.Time { return time.Unix(1760000000, 0) }
			resp, err := p.Chat(context.Background(), goldenRequest(false))
			var out bytes.Buffer
			if err != nil {
				out.WriteString(describeError(t, err))
			} else {
				u, _ := json.Marshal(resp.Usage)
				fmt.Fprintf(&out, "created=%d finish=%q usage=%s\n%s\n", resp.Created, resp.FinishReason, u, indent(t, resp.Choices))
			}
			checkGolden(t, "reply/"+name+".golden", out.Bytes())
		})
	}
}

func goldenRequest(stream bool) *shlyuz.UpstreamRequest {
	return &shlyuz.UpstreamRequest{
		GenerationID: "gen-golden", Model: "google/model", UpstreamModel: "gemini-2.5-flash", Stream: stream,
		Fields: map[string]json.RawMessage{"messages": json.RawMessage(`[{"role":"user","content":"hi"}]`)},
	}
}

// TestStreamGolden feeds recorded alt=sse streams through ChatStream over
// HTTP and checks the events it emits.
func TestStreamGolden(t *testing.T) {
	for name, in := range cases(t, "stream", ".sse") {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(raw)
			}))
			defer ts.Close()
			p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: ts.URL})
			if err != nil {
				t.Fatal(err)
			}
			defer p.CloseIdleConnections()
			p.now = func() time.Time { return time.Unix(1760000000, 0) }
			st, err := p.ChatStream(context.Background(), goldenRequest(true))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()

			var out bytes.Buffer
			for i := 0; ; i++ {
				ev, err := st.Next()
				if err != nil {
					if err == io.EOF {
						out.WriteString("end: EOF\n")
					} else {
						out.WriteString("end: " + describeError(t, err))
					}
					break
				}
				if ev.Data != nil && !json.Valid(ev.Data) {
					t.Errorf("event %d: invalid JSON: %s", i, ev.Data)
				}
				usage := "-"
				if ev.Usage != nil {
					u, _ := json.Marshal(ev.Usage)
					usage = string(u)
				}
				fmt.Fprintf(&out, "event %d: finish=%q tokens=%d usage=%s\n", i, ev.FinishReason, ev.CompletionTokens, usage)
				if ev.Data == nil {
					out.WriteString("  data: <nil>\n")
				} else {
					fmt.Fprintf(&out, "  data: %s\n", ev.Data)
				}
			}
			checkGolden(t, "stream/"+name+".golden", out.Bytes())
		})
	}
}

// TestErrorGolden maps recorded error replies: testdata/error/*.http holds a
// status line ("HTTP 429"), header lines, a blank line and the body. Chat and
// ChatStream must map them alike.
func TestErrorGolden(t *testing.T) {
	for name, in := range cases(t, "error", ".http") {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
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
			got := describeError(t, err)
			_, serr := p.ChatStream(context.Background(), goldenRequest(true))
			if s := describeError(t, serr); s != got {
				t.Errorf("ChatStream maps it otherwise:\n%s\nthan Chat:\n%s", s, got)
			}
			var e *shlyuz.Error
			errors.As(err, &e)
			if strings.Contains(e.Message, "AIzaSy") || (e.Cause != nil && strings.Contains(e.Cause.Error(), "AIzaSy")) {
				t.Errorf("the error leaks the key: %q (%v)", e.Message, e.Cause)
			}
			checkGolden(t, "error/"+name+".golden", []byte(got))
		})
	}
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
