package anthropic

import (
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
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
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

func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// requestCase is a testdata/request/*.json input: a client body and what the gateway decided.
type requestCase struct {
	UpstreamModel string          `json:"upstream_model"`
	MaxTokens     int64           `json:"max_tokens"`
	Stream        bool            `json:"stream"`
	Body          json.RawMessage `json:"body"`
}

// TestRequestGolden checks the translation of a client's OpenAI body into
// the Anthropic body, and that the fake, which validates requests as the
// real API does, accepts every translated body.
func TestRequestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/request/*.json")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no request cases: %v", err)
	}
	f := fake.New(fake.Options{})
	ts := httptest.NewServer(f)
	defer ts.Close()
	defer f.Close()
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
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
				GenerationID: "gen-golden", Model: "public/model", UpstreamModel: c.UpstreamModel,
				Fields: fields, MaxTokens: c.MaxTokens, Stream: c.Stream,
			}
			body, clientUsage, err := buildBody(req, req.Stream)
			if err != nil {
				checkGolden(t, "request/"+name+".golden", []byte(describeError(t, err)))
				return
			}
			out := fmt.Appendf(nil, "client_usage=%v\n", clientUsage)
			out = append(out, indent(t, body)...)
			checkGolden(t, "request/"+name+".golden", out)

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
	inputs, err := filepath.Glob("testdata/response/*.json")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no response cases: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			r, err := decodeReply(raw)
			if err != nil {
				checkGolden(t, "response/"+name+".golden", []byte(describeError(t, err)))
				return
			}
			u, _ := json.Marshal(r.Usage)
			out := fmt.Appendf(nil, "finish=%q usage=%s\n", r.FinishReason, u)
			out = append(out, indent(t, r.Choices)...)
			checkGolden(t, "response/"+name+".golden", out)
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
	inputs, err := filepath.Glob("testdata/stream/*.sse")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no stream cases: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".sse")
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
