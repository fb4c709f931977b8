package http

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz/http/internal/api"
)

// A request with "Expect: 100-continue" announcing a body over its route's
// limit is answered 413 at once, in its route's error shape, instead of
// "100 Continue": the client never sends the body. One within the limit is
// told to continue.
func TestExpectContinueOverTheLimitIsRefusedBeforeContinue(t *testing.T) {
	addr := serveForTest(t, api.Options{BodyLimit: 64 << 10})
	for _, tc := range []struct {
		path      string
		size      int
		status    int
		anthropic bool
	}{
		{"/api/v1/messages", 1 << 20, 413, true},
		{"/api/v1/messages/count_tokens", 1 << 20, 413, true},
		{"/api/v1/chat/completions", 1 << 20, 413, false},
		{"/payments/yookassa/notify", 128 << 10, 413, false}, // its own 64 KiB limit
		{"/api/v1/chat/completions", 1 << 10, 100, false},
	} {
		t.Run(fmt.Sprintf("%s %d", tc.path, tc.size), func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", tc.path, tc.size)
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.status != 413 {
				return
			}
			if !resp.Close {
				t.Fatal("the refused request's connection is kept open")
			}
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("not the JSON error body: %v", err)
			}
			checkShape(t, tc.anthropic, body, "request_too_large", "request_too_large")
		})
	}
}

// countingReader counts the bytes a client sent of a body.
type countingReader struct {
	r    io.Reader
	read atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// Go's client, waiting for "100 Continue", takes the 413 and sends none of the body.
func TestExpectContinueClientSendsNoBodyWhenRefused(t *testing.T) {
	addr := serveForTest(t, api.Options{BodyLimit: 64 << 10})
	body := &countingReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
	req, _ := nethttp.NewRequest("POST", "http://"+addr+"/api/v1/messages", body)
	req.ContentLength = 1 << 20
	req.Header.Set("Expect", "100-continue")
	client := &nethttp.Client{Transport: &nethttp.Transport{ExpectContinueTimeout: 10 * time.Second}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != 413 {
		t.Fatalf("status %d: %v", resp.StatusCode, out)
	}
	checkShape(t, true, out, "request_too_large", "request_too_large")
	if n := body.read.Load(); n != 0 {
		t.Fatalf("the client sent %d bytes of the refused body", n)
	}
}
