package gigachat

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
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*"+ext))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/%s: %v", dir, err)
	}
	out := map[string]string{}
	for _, f := range files {
		out[strings.TrimSuffix(filepath.Base(f), ext)] = f
	}
	return out
}

func indent(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return b
	}
	return out.Bytes()
}

func describeError(err error) string {
	var e *shlyuz.Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("error (not an *Error): %v", err)
	}
	param := "-"
	if e.Param != nil {
		param = *e.Param
	}
	return fmt.Sprintf("error: status=%d code=%s param=%s upstream_fault=%v message=%q", e.Status, e.Code, param, e.UpstreamFault, e.Message)
}

// requestCase is a testdata/request/*.json input: a client body and what the gateway decided.
type requestCase struct {
	UpstreamModel string          `json:"upstream_model"`
	MaxTokens     int64           `json:"max_tokens"`
	Stream        bool            `json:"stream"`
	Body          json.RawMessage `json:"body"`
}

// TestRequestGolden checks the translation of OpenAI request bodies into GigaChat's.
func TestRequestGolden(t *testing.T) {
	for name, path := range cases(t, "request", ".json") {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var c requestCase
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(c.Body, &fields); err != nil {
				t.Fatalf("%s: body: %v", path, err)
			}
			req := &shlyuz.UpstreamRequest{
				GenerationID: "gen-golden", Model: "public/model", UpstreamModel: c.UpstreamModel,
				Fields: fields, MaxTokens: c.MaxTokens, Stream: c.Stream,
			}
			var out bytes.Buffer
			uploads := 0
			upload := func(_ context.Context, img *image) (string, error) {
				uploads++
				fmt.Fprintf(&out, "upload %d: %s, %d bytes\n", uploads, img.mime, len(img.data))
				return fmt.Sprintf("file-%d", uploads), nil
			}
			body, err := buildBody(context.Background(), req, req.Stream, upload)
			if err != nil {
				out.WriteString(describeError(err) + "\n")
			} else {
				if !json.Valid(body) {
					t.Fatalf("built body is not valid JSON: %s", body)
				}
				out.Write(indent(body))
				out.WriteByte('\n')
			}
			checkGolden(t, "request/"+name+".golden", out.Bytes())
		})
	}
}

// TestReplyGolden checks the translation of GigaChat replies into OpenAI choices.
func TestReplyGolden(t *testing.T) {
	for name, path := range cases(t, "reply", ".json") {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			resp, err := decodeReply(raw, "gen-golden")
			if err != nil {
				out.WriteString(describeError(err) + "\n")
			} else {
				u, _ := json.Marshal(resp.Usage)
				fmt.Fprintf(&out, "created=%d finish=%q usage=%s\n", resp.Created, resp.FinishReason, u)
				out.Write(indent(resp.Choices))
				out.WriteByte('\n')
			}
			checkGolden(t, "reply/"+name+".golden", out.Bytes())
		})
	}
}

// TestStreamGolden feeds recorded GigaChat streams through ChatStream over
// HTTP and checks the events it emits.
func TestStreamGolden(t *testing.T) {
	for name, path := range cases(t, "stream", ".sse") {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/oauth") {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"access_token":"tok","expires_at":%d}`, time.Now().Add(time.Hour).UnixMilli())
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(raw)
			}))
			defer ts.Close()
			p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: ts.URL + "/api/v1", AuthURL: ts.URL + "/oauth", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			defer p.CloseIdleConnections()
			p.now = func() time.Time { return time.Unix(1_768_996_176, 0) }

			fields := map[string]json.RawMessage{"messages": json.RawMessage(`[{"role":"user","content":"hi"}]`)}
			st, err := p.ChatStream(context.Background(), &shlyuz.UpstreamRequest{
				GenerationID: "gen-golden", Model: "public/model", UpstreamModel: "GigaChat", Fields: fields, Stream: true,
			})
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
						out.WriteString("end: " + describeError(err) + "\n")
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
