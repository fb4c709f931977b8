package adaptertest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Recorder keeps "METHOD /path body" of the requests a fake upstream serves,
// for tests that check what an adapter sent when it makes more than one call
// (the fake itself keeps only the last body). Its Wrap goes as StartFake's wrap.
type Recorder struct {
	// Suffix, when set, keeps only the requests whose path ends with it
	// (an adapter's token requests, say, are left out).
	Suffix string

	mu    sync.Mutex
	lines []string
}

// Wrap records each request before h serves it, the body put back for h.
func (rec *Recorder) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, rec.Suffix) {
			b, _ := io.ReadAll(r.Body)
			rec.mu.Lock()
			rec.lines = append(rec.lines, r.Method+" "+r.URL.Path+" "+string(b))
			rec.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	})
}

// Take returns the requests recorded since the last Take, in order, and
// starts a new record.
func (rec *Recorder) Take() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	lines := rec.lines
	rec.lines = nil
	return lines
}
