package openai

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

// requestCase is a testdata/request/*.json input: a client body and what the gateway decided.
type requestCase struct {
	UpstreamModel string          `json:"upstream_model"`
	MaxTokens     int64           `json:"max_tokens"`
	Stream        bool            `json:"stream"`
	Body          json.RawMessage `json:"body"`
}

func loadRequestCase(t testing.TB, path string) *shlyuz.UpstreamRequest {
	t.Helper()
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
	return &shlyuz.UpstreamRequest{
		GenerationID:  "gen-golden",
		Model:         "public/model",
		UpstreamModel: c.UpstreamModel,
		Fields:        fields,
		MaxTokens:     c.MaxTokens,
		Stream:        c.Stream,
	}
}

// TestRequestGolden checks the translation of a client body into the body sent upstream.
func TestRequestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/request/*.json")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no request cases: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			req := loadRequestCase(t, in)
			body, clientUsage := buildBody(req, req.Stream)
			if !json.Valid(body) {
				t.Fatalf("built body is not valid JSON: %s", body)
			}
			// Gateway-only fields never go up; max_tokens and max_completion_tokens never both (when we set one).
			var sent map[string]json.RawMessage
			_ = json.Unmarshal(body, &sent)
			for k := range gatewayOnly {
				if _, ok := sent[k]; ok {
					t.Errorf("gateway-only field %q sent upstream", k)
				}
			}
			_, mt := sent["max_tokens"]
			_, mct := sent["max_completion_tokens"]
			if req.MaxTokens > 0 && mt && mct {
				t.Errorf("both max_tokens and max_completion_tokens sent")
			}
			// Every other client field goes up byte for byte.
			for k, v := range req.Fields {
				switch k {
				case "model", "stream", "stream_options", "max_tokens", "max_completion_tokens":
					continue
				}
				if gatewayOnly[k] {
					continue
				}
				if !bytes.Equal(sent[k], v) {
					t.Errorf("field %q: sent %s, client sent %s", k, sent[k], v)
				}
			}
			out := fmt.Appendf(nil, "client_usage=%v\n%s\n", clientUsage, body)
			checkGolden(t, "request/"+name+".golden", out)
		})
	}
}

// clientAskedUsage are the stream cases whose client sent stream_options.include_usage=true.
var clientAskedUsage = map[string]bool{
	"openai_usage_client_asked": true,
	"tool_calls":                true,
	"escapes_in_strings":        true,
	"deepseek_reasoning":        true,
}

// TestStreamGolden feeds recorded upstream streams through ChatStream over
// HTTP and checks the events it emits.
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
			p := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: ts.URL + "/v1"})
			defer p.CloseIdleConnections()

			fields := map[string]json.RawMessage{
				"messages": json.RawMessage(`[{"role":"user","content":"hi"}]`),
			}
			if clientAskedUsage[name] {
				fields["stream_options"] = json.RawMessage(`{"include_usage":true}`)
			}
			st, err := p.ChatStream(context.Background(), &shlyuz.UpstreamRequest{
				GenerationID: "gen-golden", Model: "public/model", UpstreamModel: "m", Fields: fields, Stream: true,
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
						var e *shlyuz.Error
						if !errors.As(err, &e) {
							t.Fatalf("Next: %v is not an *Error", err)
						}
						fmt.Fprintf(&out, "end: error status=%d code=%s upstream_fault=%v message=%q\n", e.Status, e.Code, e.UpstreamFault, e.Message)
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
