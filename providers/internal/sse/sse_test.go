package sse_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/sse"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

var errs = upstream.NewErrors("ssetest")

// recorder decodes every event into "name|data"; an event named skip is skipped.
type recorder struct{ ended bool }

func (r *recorder) Decode(ev sse.Event) (shlyuz.StreamEvent, bool, error) {
	if string(ev.Name) == "skip" || len(ev.Data) == 0 && len(ev.Name) == 0 {
		return shlyuz.StreamEvent{}, true, nil
	}
	if string(ev.Data) == "[DONE]" {
		return shlyuz.StreamEvent{}, false, io.EOF
	}
	return shlyuz.StreamEvent{Data: []byte(string(ev.Name) + "|" + string(ev.Data))}, false, nil
}

func (r *recorder) End() error {
	r.ended = true
	return io.EOF
}

// open serves body through handler and opens it as a stream.
func open(t *testing.T, handler http.HandlerFunc, cfg sse.Config, idle time.Duration) *sse.Stream {
	t.Helper()
	ts := httptest.NewServer(handler)
	t.Cleanup(ts.Close)
	c := &upstream.Call{
		Config: &shlyuz.UpstreamConfig{Name: "t", Timeout: time.Minute, FirstByteTimeout: time.Minute, IdleTimeout: idle},
		Errors: errs,
		Send:   upstream.Post(ts.Client(), ts.URL, http.Header{}, nil, upstream.Accept(true)),
		Status: func(status int, _ http.Header, _ []byte) *shlyuz.Error { return shlyuz.ErrUpstream("HTTP %d", status) },
	}
	b, err := c.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st := sse.NewStream(b, &recorder{}, cfg)
	t.Cleanup(func() { st.Close() })
	return st
}

func serve(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}
}

func read(t *testing.T, st *sse.Stream) ([]string, error) {
	t.Helper()
	var got []string
	for {
		ev, err := st.Next()
		if err != nil {
			return got, err
		}
		got = append(got, string(ev.Data))
	}
}

func TestEvents(t *testing.T) {
	body := ": keep-alive\r\n" +
		"data: {\"a\":\r\n" +
		"data: 1}\r\n\r\n" +
		"event: named\nid: 7\nretry: 10\ndata:no space\n\n" +
		"event: skip\ndata: x\n\n" +
		"{\"bare\":true}\n" +
		"event: alone\n\n" +
		"data: last without a line ending"
	for _, tc := range []struct {
		sep  byte
		want string
	}{
		{0, "|{\"a\":\n1}"},
		{' ', "|{\"a\": 1}"},
	} {
		st := open(t, serve(body), sse.Config{DataSep: tc.sep}, time.Minute)
		got, err := read(t, st)
		if err != io.EOF {
			t.Fatalf("end = %v, want io.EOF", err)
		}
		want := []string{tc.want, "named|no space", "|{\"bare\":true}", "alone|", "|last without a line ending"}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("separator %q: events\n%q\nwant\n%q", tc.sep, got, want)
		}
		if _, err := st.Next(); err != io.EOF {
			t.Errorf("Next after the end = %v, want io.EOF again", err)
		}
	}
}

func TestDoneEndsStream(t *testing.T) {
	st := open(t, serve("data: one\n\ndata: [DONE]\n\ndata: after\n\n"), sse.Config{}, time.Minute)
	got, err := read(t, st)
	if err != io.EOF || len(got) != 1 || got[0] != "|one" {
		t.Errorf("%q, %v", got, err)
	}
}

func TestLineTooLong(t *testing.T) {
	st := open(t, serve("data: "+strings.Repeat("x", 40<<10)+"\n\n"), sse.Config{MaxLine: 16 << 10}, time.Minute)
	_, err := read(t, st)
	var e *shlyuz.Error
	if !errors.As(err, &e) || e.Message != "The upstream sent a stream line longer than 16384 bytes." {
		t.Errorf("err = %v", err)
	}
}

// stall writes body, then keep-alive comments every 20ms until the test ends.
func stall(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
		w.(http.Flusher).Flush()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				io.WriteString(w, ": ping\n")
				w.(http.Flusher).Flush()
			}
		}
	}
}

func TestKeepAlive(t *testing.T) {
	// Comments keep a stream alive past its idle timeout unless they are quiet.
	st := open(t, stall("data: one\n\n"), sse.Config{}, 100*time.Millisecond)
	if _, err := st.Next(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := st.Next(); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("Next ended with %v while the upstream sent keep-alives", err)
	case <-time.After(300 * time.Millisecond):
	}
	st.Close()
	if err := <-done; err != errs.Closed {
		t.Errorf("Next after Close = %v, want the Closed error", err)
	}

	quiet := open(t, stall("data: one\n\n"), sse.Config{QuietComments: true}, 100*time.Millisecond)
	_, err := read(t, quiet)
	var e *shlyuz.Error
	if !errors.As(err, &e) || e.Status != 504 || e.Message != "The upstream stopped sending the stream." {
		t.Errorf("a quiet keep-alive: %v, want the idle timeout", err)
	}
}
