package http

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests attack a gateway's HTTP layer over real loopback connections.
// The routes they hit refuse or never finish before a handler needs the
// gateway, so the server runs without one.

// serveForTest starts the HTTP layer on a loopback port and returns its address.
func serveForTest(t *testing.T, o Options) string {
	t.Helper()
	s := New(nil, o)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.App.ShutdownWithTimeout(5 * time.Second) })
	return ln.Addr().String()
}

// rssBytes is this process's resident set (Linux), or 0 where unknown.
func rssBytes(t *testing.T) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status: RSS cannot be measured here")
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmRSS")
	return 0
}

func idleRSS(t *testing.T) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	return rssBytes(t)
}

// gzipBomb is a body of about 1 MiB that inflates to n MiB of zeros: one
// compressed MiB repeated as gzip members (a reader takes them as one stream).
func gzipBomb(t *testing.T, mib int) []byte {
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	if _, err := zw.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	_ = zw.Close()
	return bytes.Repeat(member.Bytes(), mib)
}

// post sends one request on a fresh connection and reads the answer.
func post(t *testing.T, addr, path string, header map[string]string, body []byte) (int, map[string]any) {
	t.Helper()
	req, _ := nethttp.NewRequest("POST", "http://"+addr+path, bytes.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	req.Close = true
	resp, err := nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// announce sends only the headers of a request announcing n body bytes, and
// reads the answer.
func announce(t *testing.T, addr, path string, n int) (int, map[string]any) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: gw\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", path, n)
	resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func errorCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func TestCompressedBodiesAreBoundedByTheRoutesLimit(t *testing.T) {
	addr := serveForTest(t, Options{BodyLimit: 32 << 20})
	idle := idleRSS(t)
	bomb := gzipBomb(t, 1024) // 1 GiB inflated
	small := gzipBomb(t, 1)
	gz := map[string]string{"Content-Encoding": "gzip", "Content-Type": "application/json", "Authorization": "Bearer sk-x"}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, tc := range []struct {
		name, path string
		body       []byte
		status     int
		code       string
	}{
		{"1 GiB bomb on the API", "/api/v1/chat/completions", bomb, 413, "request_too_large"},
		{"gzip where plain bodies only", "/payments/yookassa/notify", small, 415, "unsupported_content_encoding"},
		{"gzip on the operator API", "/api/admin/accounts", small, 415, "unsupported_content_encoding"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, addr, tc.path, gz, tc.body)
			if status != tc.status || errorCode(body) != tc.code {
				t.Fatalf("%d %v, want %d %s", status, body, tc.status, tc.code)
			}
		})
	}
	t.Run("1 GiB bomb on the payments hook", func(t *testing.T) {
		// refused by its announced size, before the body is read
		status, body := announce(t, addr, "/payments/yookassa/notify", len(bomb))
		if status != 413 || errorCode(body) != "request_too_large" {
			t.Fatalf("%d %v", status, body)
		}
	})
	t.Run("a body past the memory budget is answered 503", func(t *testing.T) {
		tight := serveForTest(t, Options{BodyLimit: 32 << 20, BodyMemory: 1 << 20})
		status, body := post(t, tight, "/api/v1/chat/completions", gz, gzipBomb(t, 4))
		if status != 503 || errorCode(body) != "too_many_large_bodies" {
			t.Fatalf("%d %v", status, body)
		}
	})
	t.Run("unknown coding", func(t *testing.T) {
		status, body := post(t, addr, "/api/v1/chat/completions", map[string]string{"Content-Encoding": "lzma"}, []byte("x"))
		if status != 415 || errorCode(body) != "unsupported_content_encoding" {
			t.Fatalf("%d %v", status, body)
		}
	})
	t.Run("not gzip at all", func(t *testing.T) {
		status, body := post(t, addr, "/api/v1/chat/completions", map[string]string{"Content-Encoding": "gzip"}, []byte("plain"))
		if status != 400 || errorCode(body) != "invalid_body" {
			t.Fatalf("%d %v", status, body)
		}
	})
	runtime.ReadMemStats(&after)
	grew, allocated := rssBytes(t)-idle, after.TotalAlloc-before.TotalAlloc
	t.Logf("a 1 GiB bomb: %d MiB allocated, RSS %d MiB over idle", allocated>>20, grew>>20)
	if allocated > 16<<20 { // counted while inflated, never held: no buffer for the inflated bytes
		t.Fatalf("the bombs allocated %d MiB", allocated>>20)
	}
	if !raceEnabled && grew > 128<<20 { // the race detector's shadow memory is not the gateway's
		t.Fatalf("RSS grew by %d MiB", grew>>20)
	}
}

func TestInflatedBodyWithinTheLimitReachesTheHandler(t *testing.T) {
	// A body inflated within the limit reaches the route plain: the operator
	// API off answers its own 404, not a 4xx about the body.
	addr := serveForTest(t, Options{BodyLimit: 32 << 20})
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(`{"model":"x"}`))
	_ = zw.Close()
	status, body := post(t, addr, "/api/v1/nope", map[string]string{"Content-Encoding": "gzip"}, b.Bytes())
	if status != 404 {
		t.Fatalf("%d %v", status, body)
	}
}

// trickle announces a 32 MiB body, sends first bytes, then a byte every
// 100 ms; it returns the status the gateway answered and whether the
// gateway then closed the connection.
func trickle(addr string, first int, stop <-chan struct{}) (int, bool, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, false, err
	}
	defer c.Close()
	if _, err := fmt.Fprintf(c, "POST /api/v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer sk-x\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", 32<<20, strings.Repeat("x", first)); err != nil {
		return 0, false, err
	}
	answered := make(chan struct{})
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-answered:
				return
			case <-stop:
				return
			case <-tick.C:
				if _, err := c.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	br := bufio.NewReader(c)
	resp, err := nethttp.ReadResponse(br, nil)
	close(answered)
	if err != nil {
		return 0, false, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = br.ReadByte()
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout()
	return resp.StatusCode, err != nil && !timedOut, nil // EOF, or a reset of the bytes written after the close
}

func TestTricklingBodiesAreDroppedAndHoldNoMemory(t *testing.T) {
	addr := serveForTest(t, Options{BodyLimit: 32 << 20, HeaderTimeout: 2 * time.Second,
		BodyGrace: 500 * time.Millisecond, MinBodyRate: 64 << 10})
	idle := idleRSS(t)
	const n = 50
	stop := make(chan struct{})
	defer close(stop)
	type result struct {
		status int
		closed bool
		err    error
	}
	results := make(chan result, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		// Half send the first 8 KiB at once (held to the minimum rate by
		// the body reader), half trickle from the first byte (held to the
		// header timeout by the server while it waits for the first 8 KiB).
		first := 16 << 10
		if i%2 == 1 {
			first = 1
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, closed, err := trickle(addr, first, stop)
			results <- result{status, closed, err}
		}()
	}
	peak := int64(0)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(50 * time.Millisecond):
			peak = max(peak, rssBytes(t)-idle)
		case <-time.After(60 * time.Second):
			t.Fatal("trickling connections were still open after a minute")
		}
	}
	close(results)
	for r := range results {
		if r.err != nil || r.status != 408 || !r.closed {
			t.Errorf("a trickling connection: status %d, closed %v, err %v", r.status, r.closed, r.err)
		}
	}
	t.Logf("%d trickling 32 MiB bodies: all answered 408 and closed after %s; RSS peak %d MiB over idle",
		n, time.Since(start).Round(time.Millisecond), peak>>20)
	if peak > 128<<20 {
		t.Fatalf("RSS peaked %d MiB over idle", peak>>20)
	}
}

func TestSteadyUploadAtANormalRateIsRead(t *testing.T) {
	// A 256 KiB body sent in 16 KiB pieces over a second and a half, past the
	// grace, at well over the minimum rate: read whole, then routed (404).
	addr := serveForTest(t, Options{BodyLimit: 32 << 20, BodyGrace: 200 * time.Millisecond, MinBodyRate: 1024})
	pr, pw := io.Pipe()
	go func() {
		piece := bytes.Repeat([]byte("y"), 16<<10)
		for range 16 {
			time.Sleep(100 * time.Millisecond) // the client's pace, not a wait for an effect
			if _, err := pw.Write(piece); err != nil {
				return
			}
		}
		_ = pw.Close()
	}()
	req, _ := nethttp.NewRequest("POST", "http://"+addr+"/api/v1/nope", pr)
	req.ContentLength = 16 * 16 << 10
	resp, err := nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 404 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

// raw sends bytes on a fresh connection and reads the answer.
func raw(t *testing.T, addr, request string) (*nethttp.Response, map[string]any) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%d: not the JSON error body: %v", resp.StatusCode, err)
	}
	return resp, out
}

func TestRefusalsBeforeARouteAnswerTheErrorBody(t *testing.T) {
	addr := serveForTest(t, Options{})
	for _, tc := range []struct {
		name, request string
		status        int
		code          string
	}{
		{"unknown method", "FOO / HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method_not_allowed"},
		{"huge header", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n", 431, "invalid_request"},
		{"no request line", "GARBAGE\r\n\r\n", 400, "invalid_request"},
		{"bad Content-Length", "POST /api/v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := raw(t, addr, tc.request)
			if resp.StatusCode != tc.status || errorCode(body) != tc.code {
				t.Fatalf("%d %v", resp.StatusCode, body)
			}
			if msg, _ := body["error"].(map[string]any)["message"].(string); strings.Contains(msg, "GARBAGE") || strings.Contains(msg, "abc") {
				t.Fatalf("the refusal echoes the request: %q", msg)
			}
		})
	}
}

func TestConnectionsPastTheCapAreToldSo(t *testing.T) {
	addr := serveForTest(t, Options{MaxConns: 2})
	for range 2 { // two idle connections take the places
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	resp, body := raw(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != 503 || errorCode(body) != "too_many_connections" || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("%d %v", resp.StatusCode, body)
	}
}

func TestSlowlorisHeadersAreDroppedWhileOthersAreServed(t *testing.T) {
	addr := serveForTest(t, Options{HeaderTimeout: 500 * time.Millisecond})
	const n = 200
	closed := make(chan error, n)
	stop := make(chan struct{})
	defer close(stop)
	for range n {
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				closed <- err
				return
			}
			defer c.Close()
			_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
			go func() { // one more header line every 100 ms, never the end
				for {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
						if _, err := io.WriteString(c, "X-A: b\r\n"); err != nil {
							return
						}
					}
				}
			}()
			_ = c.SetReadDeadline(time.Now().Add(time.Minute))
			_, err = io.Copy(io.Discard, c) // returns once the gateway closes
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				closed <- err
				return
			}
			closed <- nil
		}()
	}
	// A normal client is served meanwhile.
	for range 20 {
		resp, err := nethttp.Get("http://" + addr + "/nope")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("a normal request: %d", resp.StatusCode)
		}
	}
	for range n {
		if err := <-closed; err != nil {
			t.Fatalf("a slowloris connection was not closed: %v", err)
		}
	}
}

// p99 of n sequential requests on one kept-alive connection.
func p99(t *testing.T, c *nethttp.Client, url string, n int) time.Duration {
	t.Helper()
	d := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		resp, err := c.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("a normal request: %d", resp.StatusCode)
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	return d[len(d)*99/100]
}

func TestNormalClientIsServedDuring2000SlowlorisConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 connections")
	}
	addr := serveForTest(t, Options{})
	c := &nethttp.Client{Transport: &nethttp.Transport{MaxIdleConnsPerHost: 1}}
	defer c.CloseIdleConnections()
	url := "http://" + addr + "/nope"
	p99(t, c, url, 50) // warm
	idle := p99(t, c, url, 300)
	const n = 2000
	stop := make(chan struct{})
	var open sync.WaitGroup
	open.Add(n)
	for i := range n {
		go func() {
			conn, err := net.Dial("tcp", addr)
			open.Done()
			if err != nil {
				return
			}
			defer conn.Close()
			_, _ = io.WriteString(conn, "GET /nope HTTP/1.1\r\nHost: x\r\n")
			next := time.Duration(i) * time.Second / n // spread over the second, as independent clients are
			for {
				select {
				case <-stop:
					return
				case <-time.After(next): // one header line a second, never the end
					next = time.Second
					if _, err := io.WriteString(conn, "X-A: b\r\n"); err != nil {
						return
					}
				}
			}
		}()
	}
	open.Wait()
	attacked := p99(t, c, url, 1000)
	close(stop)
	t.Logf("a normal client's p99: %s idle, %s during %d slowloris connections", idle, attacked, n)
}
