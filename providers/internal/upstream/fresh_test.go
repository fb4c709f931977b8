package upstream

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
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
