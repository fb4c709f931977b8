package fake_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/providers/fake"
)

// nullWriter is a ResponseWriter that discards, so the benchmark measures the handler.
type nullWriter struct{ h http.Header }

func (w *nullWriter) Header() http.Header         { return w.h }
func (w *nullWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nullWriter) WriteHeader(int)             {}
func (w *nullWriter) Flush()                      {}

// BenchmarkHandler is one request through the fake's handler, 16 reply tokens.
func BenchmarkHandler(b *testing.B) {
	f := fake.New(fake.Options{})
	for _, stream := range []bool{false, true} {
		name, body := "chat", `{"model":"fake/model","messages":[{"role":"user","content":"Hello there, how are you today?"}]}`
		if stream {
			name, body = "stream", `{"model":"fake/model","messages":[{"role":"user","content":"Hello there, how are you today?"}],"stream":true,"stream_options":{"include_usage":true}}`
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
				f.ServeHTTP(&nullWriter{h: http.Header{}}, r)
			}
		})
	}
}
