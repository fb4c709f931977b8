package yandex

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

// cases lists testdata/<dir>/*<ext>; a missing directory fails the test.
func cases(t *testing.T, dir, ext string) []string {
	t.Helper()
	in, err := filepath.Glob(filepath.Join("testdata", dir, "*"+ext))
	if err != nil || len(in) == 0 {
		t.Fatalf("no %s cases: %v", dir, err)
	}
	return in
}

func describeError(err error) string {
	var e *shlyuz.Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("error (not an *Error) %v", err)
	}
	param := "-"
	if e.Param != nil {
		param = *e.Param
	}
	return fmt.Sprintf("error status=%d code=%s param=%s upstream_fault=%v retry_after=%s message=%q",
		e.Status, e.Code, param, e.UpstreamFault, e.RetryAfter, e.Message)
}

// requestCase is a testdata/request/*.json input: a client body and what the gateway decided.
type requestCase struct {
	UpstreamModel string          `json:"upstream_model"`
	MaxTokens     int64           `json:"max_tokens"`
	Stream        bool            `json:"stream"`
	Body          json.RawMessage `json:"body"`
}

// TestRequestGolden checks the translation of a client's OpenAI body into
// the native body (or the refusal of it).
func TestRequestGolden(t *testing.T) {
	for _, in := range cases(t, "request", ".json") {
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
				GenerationID: "gen-golden", Model: "yandex/yandexgpt", UpstreamModel: c.UpstreamModel,
				Fields: fields, MaxTokens: c.MaxTokens, Stream: c.Stream,
			}
			body, err := buildBody(req, "b1gfolder", c.Stream)
			var out []byte
			if err != nil {
				out = []byte(describeError(err) + "\n")
			} else {
				if !json.Valid(body) {
					t.Fatalf("built body is not valid JSON: %s", body)
				}
				var pretty bytes.Buffer
				_ = json.Indent(&pretty, body, "", "  ")
				out = append(pretty.Bytes(), '\n')
			}
			checkGolden(t, "request/"+name+".golden", out)
		})
	}
}

// TestReplyGolden checks the translation of native non-streamed replies.
func TestReplyGolden(t *testing.T) {
	now := time.Unix(1760000000, 0)
	for _, in := range cases(t, "reply", ".json") {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := decodeReply("golden", raw, "gen-golden", now)
			var out bytes.Buffer
			if err != nil {
				out.WriteString(describeError(err) + "\n")
			} else {
				if !json.Valid(resp.Choices) {
					t.Fatalf("choices are not valid JSON: %s", resp.Choices)
				}
				u, _ := json.Marshal(resp.Usage)
				fmt.Fprintf(&out, "created=%d finish=%q system_fingerprint=%q\nusage=%s\nchoices=%s\n",
					resp.Created, resp.FinishReason, resp.SystemFingerprint, u, resp.Choices)
			}
			checkGolden(t, "reply/"+name+".golden", out.Bytes())
		})
	}
}

// TestStreamGolden feeds native stream bodies through ChatStream over HTTP
// and checks the events it emits.
func TestStreamGolden(t *testing.T) {
	for _, in := range cases(t, "stream", ".ndjson") {
		name := strings.TrimSuffix(filepath.Base(in), ".ndjson")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(raw)
			}))
			defer ts.Close()
			p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: ts.URL, FolderID: "b1gfolder", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			p.now = func() time.Time { return time.Unix(1760000000, 0) }
			defer p.CloseIdleConnections()

			clientUsage := strings.Contains(name, "client_usage")
			fields := map[string]json.RawMessage{
				"messages": json.RawMessage(`[{"role":"user","content":"hi"}]`),
			}
			if clientUsage {
				fields["stream_options"] = json.RawMessage(`{"include_usage":true}`)
			}
			st, err := p.ChatStream(context.Background(), &shlyuz.UpstreamRequest{
				GenerationID: "gen-golden", Model: "yandex/yandexgpt", UpstreamModel: "yandexgpt", Fields: fields, Stream: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()

			var out bytes.Buffer
			fmt.Fprintf(&out, "client_usage=%v\n", clientUsage)
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
