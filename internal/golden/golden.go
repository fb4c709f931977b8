// Package golden is golden-file testing for the adapters and the client
// protocols: outputs compared with the files under testdata, or written
// there when the tests run with -update; the cases read from testdata; and
// the rendering of a stream's events, the same for every adapter.
package golden

import (
	"bytes"
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

// Check compares got with testdata/<path>, or rewrites it under -update.
func Check(t *testing.T, path string, got []byte) {
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

// Case is an input file under testdata.
type Case struct {
	Name string // the file's name without its extension
	Path string
}

// Cases lists testdata/<dir>/*<ext> in name order; none fails the test.
func Cases(t testing.TB, dir, ext string) []Case {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*"+ext))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s cases in testdata: %v", dir, err)
	}
	cases := make([]Case, len(files))
	for i, f := range files {
		cases[i] = Case{Name: strings.TrimSuffix(filepath.Base(f), ext), Path: f}
	}
	return cases
}

// Serve serves the file at path, as contentType, to every request until the
// test ends, and returns the server's URL: a recorded upstream reply.
func Serve(t testing.TB, path, contentType string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ServeBytes(t, raw, contentType)
}

// ServeBytes serves raw, as contentType, to every request until the test
// ends, and returns the server's URL.
func ServeBytes(t testing.TB, raw []byte, contentType string) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(raw)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// request is a testdata/request/*.json case: a client's body and what the gateway decided.
type request struct {
	UpstreamModel string          `json:"upstream_model"`
	MaxTokens     int64           `json:"max_tokens"`
	Stream        bool            `json:"stream"`
	Body          json.RawMessage `json:"body"`
}

// LoadRequest reads the request case at path as the gateway hands it to an
// adapter: generation gen-golden, the public model named model.
func LoadRequest(t testing.TB, path, model string) *shlyuz.UpstreamRequest {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c request
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(c.Body, &fields); err != nil {
		t.Fatalf("%s: body: %v", path, err)
	}
	return &shlyuz.UpstreamRequest{
		GenerationID:  "gen-golden",
		Model:         model,
		UpstreamModel: c.UpstreamModel,
		Fields:        fields,
		MaxTokens:     c.MaxTokens,
		Stream:        c.Stream,
	}
}

// Indent pretty-prints JSON with two spaces; b that is not JSON fails the test.
func Indent(t testing.TB, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return out.Bytes()
}

// WriteEvents drains st into out: two lines an event (its finish reason,
// tokens and usage, then its data), then "end: EOF" or "end: " followed by
// describe(err), which ends with its own newline. An event whose data is not
// JSON fails the test.
func WriteEvents(t *testing.T, out *bytes.Buffer, st shlyuz.ChatStream, describe func(error) string) {
	t.Helper()
	for i := 0; ; i++ {
		ev, err := st.Next()
		if err != nil {
			if err == io.EOF {
				out.WriteString("end: EOF\n")
			} else {
				out.WriteString("end: " + describe(err))
			}
			return
		}
		if ev.Data != nil && !json.Valid(ev.Data) {
			t.Errorf("event %d: invalid JSON: %s", i, ev.Data)
		}
		usage := "-"
		if ev.Usage != nil {
			u, _ := json.Marshal(ev.Usage)
			usage = string(u)
		}
		fmt.Fprintf(out, "event %d: finish=%q tokens=%d usage=%s\n", i, ev.FinishReason, ev.CompletionTokens, usage)
		if ev.Data == nil {
			out.WriteString("  data: <nil>\n")
		} else {
			fmt.Fprintf(out, "  data: %s\n", ev.Data)
		}
	}
}

// Run runs a subtest for each testdata/<dir>/*<ext> case and compares what
// render makes of it with testdata/<dir>/<name>.golden.
func Run(t *testing.T, dir, ext string, render func(t *testing.T, c Case) []byte) {
	t.Helper()
	for _, c := range Cases(t, dir, ext) {
		t.Run(c.Name, func(t *testing.T) {
			Check(t, dir+"/"+c.Name+".golden", render(t, c))
		})
	}
}

// ChatRequest is the gateway's request of a recorded reply or stream:
// generation gen-golden, the public model model routed to upstreamModel, the
// client's one message "hi", asking for usage when clientUsage.
func ChatRequest(model, upstreamModel string, stream, clientUsage bool) *shlyuz.UpstreamRequest {
	fields := map[string]json.RawMessage{
		"messages": json.RawMessage(`[{"role":"user","content":"hi"}]`),
	}
	if clientUsage {
		fields["stream_options"] = json.RawMessage(`{"include_usage":true}`)
	}
	return &shlyuz.UpstreamRequest{
		GenerationID: "gen-golden", Model: model, UpstreamModel: upstreamModel, Fields: fields, Stream: stream,
	}
}

// Events renders a stream for a golden file: head, then the events as
// WriteEvents writes them. It closes st.
func Events(t *testing.T, head string, st shlyuz.ChatStream, describe func(error) string) []byte {
	t.Helper()
	defer st.Close()
	var out bytes.Buffer
	out.WriteString(head)
	WriteEvents(t, &out, st, describe)
	return out.Bytes()
}

// AsError is err as an *Error; another error fails the test.
func AsError(t testing.TB, err error) *shlyuz.Error {
	t.Helper()
	var e *shlyuz.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v (%T) is not an *Error", err, err)
	}
	return e
}

// Describe renders an adapter error for a golden file: its status, type,
// code, faults, retry delay, param ("-" when none) and message.
func Describe(t testing.TB, err error) string {
	t.Helper()
	e := AsError(t, err)
	return fmt.Sprintf("error: status=%d type=%s code=%s upstream_fault=%v retry_after=%v param=%s\n  message: %s\n",
		e.Status, e.Type, e.Code, e.UpstreamFault, e.RetryAfter, Param(e, "-"), e.Message)
}

// Param is the error's param, or none when it has none.
func Param(e *shlyuz.Error, none string) string {
	if e.Param == nil {
		return none
	}
	return *e.Param
}
