package upstream

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestFreshRetryAfterRestart fills the pool with kept-alive connections,
// restarts the server on the same address (every connection closed), and
// sends as many concurrent POSTs as the pool held: each must get a reply,
// with its body whole, though every pooled connection is stale.
func TestFreshRetryAfterRestart(t *testing.T) {
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(b)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := &http.Server{Handler: echo}
	go srv.Serve(ln)

	const n = 64
	c := NewClientWithRoots(nil)
	c.Transport.(*FreshRetry).MaxIdleConnsPerHost = n
	post := func(i int) (string, error) {
		body := strings.Repeat("x", i+1)
		resp, err := c.Post("http://"+addr+"/", "text/plain", strings.NewReader(body))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && string(b) != body {
			return string(b), io.ErrUnexpectedEOF
		}
		return string(b), err
	}
	run := func() []error {
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() { _, errs[i] = post(i) })
		}
		wg.Wait()
		return errs
	}
	for i, err := range run() {
		if err != nil {
			t.Fatalf("before the restart, request %d: %v", i, err)
		}
	}

	srv.Close() // every connection in the pool is now stale
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv = &http.Server{Handler: echo}
	go srv.Serve(ln)
	defer srv.Close()
	for i, err := range run() {
		if err != nil {
			t.Errorf("after the restart, request %d: %v", i, err)
		}
	}
}

// noticedConn is a client connection that says when the transport closed it.
type noticedConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
}

func (c *noticedConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// TestStaleKnowsServerClosedIdle makes net/http itself say "server closed
// idle connection" and asserts that Stale knows it, so that a Go release
// that changes the text (Stale matches the unexported error by it) fails
// here. The error comes from the window between the transport taking a
// pooled connection and counting the request on it: the server closes the
// connection then (from the GotConn hook), and the transport's read loop,
// finding the connection's end with no request counted, closes it with that
// error, which a POST gets back as it is (net/http retries only idempotent
// requests on it). Whether the transport's write loop notices the close
// before it takes the request is up to the scheduler: when it does not, the
// write fails with nothing written, net/http retries the POST on a new
// connection itself, and the test tries again.
func TestStaleKnowsServerClosedIdle(t *testing.T) {
	var serverConns sync.Map // the client's address → the server's end of its connection
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			io.WriteString(w, "ok")
		}),
		ConnState: func(c net.Conn, s http.ConnState) {
			if s == http.StateNew {
				serverConns.Store(c.RemoteAddr().String(), c)
			}
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"

	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &noticedConn{Conn: c, closed: make(chan struct{})}, nil
	}}
	defer tr.CloseIdleConnections()
	warm, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(warm) // a connection in the pool
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body) // at its end the connection is back in the pool
	resp.Body.Close()

	var hookErr error
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			return // net/http's own retry on a new connection
		}
		c := info.Conn.(*noticedConn)
		s, ok := serverConns.Load(c.LocalAddr().String())
		if !ok {
			hookErr = errors.New("no server end for the pooled connection")
			return
		}
		s.(net.Conn).Close()
		select {
		case <-c.closed: // the read loop saw the end, with no request counted yet
		case <-time.After(10 * time.Second):
			hookErr = errors.New("the transport never closed the connection the server closed")
		}
	}}
	for try := range 64 {
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodPost, url, strings.NewReader("hello"))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := tr.RoundTrip(req)
		if hookErr != nil {
			t.Fatal(hookErr)
		}
		if err == nil { // the write loop took the request: net/http retried it on a new connection
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			continue
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
			errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
			t.Fatalf("try %d: %v: not net/http's own error for a closed idle connection", try, err)
		}
		if !Stale(err) {
			t.Fatalf("Stale(%q) = false: net/http's error for a closed idle connection is no longer %q", err, errServerClosedIdle)
		}
		t.Logf("try %d: %v", try, err)
		return
	}
	t.Fatal("64 tries, and net/http never said it found the pooled connection closed")
}
