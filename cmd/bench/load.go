package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The load generator: one keep-alive net/http client, a fixed body per
// request kind, only HTTP 200 counts as a sample; everything else is an
// error counted by kind.

// newClient is the load generator's client: keep-alive, enough idle
// connections for the highest concurrency, no proxy (loopback only), no
// compression, bounded time-outs.
func newClient(maxConns int) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          0, // no total limit
		MaxIdleConnsPerHost:   max(maxConns, 1024),
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ResponseHeaderTimeout: 30 * time.Second,
		ForceAttemptHTTP2:     false,
	}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// target is one request the generator repeats: where, with which key, what body.
type target struct {
	urls   []string // the chat completions URLs: several nodes of a cluster take turns
	next   atomic.Uint64
	auth   string // "Bearer …" or ""
	body   []byte
	stream bool
}

// newTarget makes a target of base, or of several comma-separated bases
// (the nodes of a cluster, taken in turn).
func newTarget(base, key, model string, stream bool, maxTokens int) *target {
	t := &target{body: requestBody(model, stream, maxTokens), stream: stream}
	for _, b := range strings.Split(base, ",") {
		t.urls = append(t.urls, strings.TrimRight(b, "/")+"/chat/completions")
	}
	if key != "" {
		t.auth = "Bearer " + key
	}
	return t
}

// requestBody is the fixed body of every request of a kind.
func requestBody(model string, stream bool, maxTokens int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"model":%q,"messages":[{"role":"user","content":"Hello from the Shlyuz benchmark. Please answer in a few words."}],"max_tokens":%d`, model, maxTokens)
	if stream {
		b.WriteString(`,"stream":true,"stream_options":{"include_usage":true}`)
	}
	b.WriteString("}")
	return b.Bytes()
}

func (t *target) newRequest(ctx context.Context) (*http.Request, error) {
	url := t.urls[int(t.next.Add(1)-1)%len(t.urls)]
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(t.body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if t.stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	if t.auth != "" {
		req.Header.Set("Authorization", t.auth)
	}
	return req, nil
}

// errorKind names a transport error by its innermost message
// ("connection refused", "context deadline exceeded").
func errorKind(err error) string {
	if errors.Is(err, context.Canceled) {
		return "canceled"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	if len(msg) > 80 {
		msg = msg[:80]
	}
	return "transport: " + msg
}

// do sends one non-streamed request and reads the whole reply; the latency
// is until the last byte. kind is "" for an HTTP 200.
func do(ctx context.Context, c *http.Client, t *target, buf []byte) (lat time.Duration, kind string) {
	req, err := t.newRequest(ctx)
	if err != nil {
		return 0, errorKind(err)
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, errorKind(err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return 0, statusKind(resp)
	}
	_, err = io.CopyBuffer(io.Discard, resp.Body, buf)
	lat = time.Since(start)
	resp.Body.Close()
	switch {
	case err != nil:
		return 0, errorKind(err)
	}
	return lat, ""
}

// sequential sends n requests at concurrency 1 to a and to b, alternating in
// blocks (a first in even blocks, b first in odd ones) so drift hits both.
func sequential(ctx context.Context, c *http.Client, a, b *target, n, block int) (la, lb []time.Duration, ea, eb errCounter) {
	la, lb = make([]time.Duration, 0, n), make([]time.Duration, 0, n)
	buf := make([]byte, 32<<10)
	run := func(t *target, k int, lat *[]time.Duration, errs *errCounter) {
		for range k {
			if ctx.Err() != nil {
				return
			}
			if d, kind := do(ctx, c, t, buf); kind == "" {
				*lat = append(*lat, d)
			} else {
				errs.add(kind)
			}
		}
	}
	block = max(1, block)
	for i, done := 0, 0; done < n && ctx.Err() == nil; i++ {
		k := min(block, n-done)
		if i%2 == 0 {
			run(a, k, &la, &ea)
			run(b, k, &lb, &eb)
		} else {
			run(b, k, &lb, &eb)
			run(a, k, &la, &ea)
		}
		done += k
	}
	return la, lb, ea, eb
}

// phase is the outcome of a closed-loop run at a fixed concurrency.
type phase struct {
	lat     []time.Duration // of the requests that ended with 200 before the deadline
	errs    errCounter
	elapsed time.Duration
}

// closedLoop keeps conc requests in flight for dur: each worker sends the
// next request when the previous one ends. Requests still in flight at the
// deadline finish (bounded by the client's time-out) but are not counted.
func closedLoop(ctx context.Context, c *http.Client, t *target, conc int, dur time.Duration) phase {
	ctx, cancel := context.WithTimeout(ctx, dur+30*time.Second)
	defer cancel()
	start := time.Now()
	deadline := start.Add(dur)
	lats := make([][]time.Duration, conc)
	errs := make([]errCounter, conc)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 16<<10)
			lat := make([]time.Duration, 0, 1024)
			for ctx.Err() == nil && time.Now().Before(deadline) {
				d, kind := do(ctx, c, t, buf)
				if time.Now().After(deadline) {
					break
				}
				if kind == "" {
					lat = append(lat, d)
				} else {
					errs[w].add(kind)
				}
			}
			lats[w] = lat
		}()
	}
	wg.Wait()
	p := phase{elapsed: dur}
	for w := range conc {
		p.lat = append(p.lat, lats[w]...)
		p.errs.merge(errs[w])
	}
	return p
}

// streamSample is what one streamed request showed.
type streamSample struct {
	firstData    time.Duration   // to the first "data:" line
	firstContent time.Duration   // to the first chunk with non-empty delta content
	total        time.Duration   // to "data: [DONE]"
	gaps         []time.Duration // between consecutive content chunks
	chunks       int             // content chunks
}

var (
	dataPrefix  = []byte("data:")
	donePayload = []byte("[DONE]")
	contentKeys = [][]byte{[]byte(`"content":"`), []byte(`"content": "`)}
)

// hasContent reports whether an SSE data line carries non-empty delta content.
func hasContent(line []byte) bool {
	for _, key := range contentKeys {
		if i := bytes.Index(line, key); i >= 0 && i+len(key) < len(line) && line[i+len(key)] != '"' {
			return true
		}
	}
	return false
}

// streamOnce sends one streamed request and times its SSE lines. kind is
// "" for an HTTP 200 stream that ended with [DONE] and carried content.
func streamOnce(ctx context.Context, c *http.Client, t *target, br *bufio.Reader) (s streamSample, kind string) {
	req, err := t.newRequest(ctx)
	if err != nil {
		return s, errorKind(err)
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return s, errorKind(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, statusKind(resp)
	}
	br.Reset(resp.Body)
	var last time.Duration
	done, lineStart := false, true
	for !done {
		line, err := br.ReadSlice('\n')
		now := time.Since(start)
		if lineStart && bytes.HasPrefix(line, dataPrefix) {
			payload := bytes.TrimSpace(line[len(dataPrefix):])
			switch {
			case bytes.Equal(payload, donePayload):
				s.total, done = now, true
			default:
				if s.firstData == 0 {
					s.firstData = now
				}
				if hasContent(payload) {
					if s.chunks == 0 {
						s.firstContent = now
					} else {
						s.gaps = append(s.gaps, now-last)
					}
					last = now
					s.chunks++
				}
			}
		}
		lineStart = !errors.Is(err, bufio.ErrBufferFull)
		if err != nil && lineStart {
			break
		}
	}
	_, _ = io.Copy(io.Discard, br) // to EOF, so the connection is reused
	switch {
	case !done:
		return s, "stream ended without [DONE]"
	case s.chunks == 0:
		return s, "stream without content"
	}
	return s, ""
}

// streams sends n streamed requests at concurrency 1 to a and b, alternating one by one.
func streams(ctx context.Context, c *http.Client, a, b *target, n int) (sa, sb []streamSample, ea, eb errCounter) {
	br := bufio.NewReaderSize(nil, 64<<10)
	one := func(t *target, out *[]streamSample, errs *errCounter) {
		if s, kind := streamOnce(ctx, c, t, br); kind == "" {
			*out = append(*out, s)
		} else {
			errs.add(kind)
		}
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		if i%2 == 0 {
			one(a, &sa, &ea)
			one(b, &sb, &eb)
		} else {
			one(b, &sb, &eb)
			one(a, &sa, &ea)
		}
	}
	return sa, sb, ea, eb
}

// firstBase is the first of comma-separated base URLs (a cluster's node
// whose /metrics and /key are read).
func firstBase(bases string) string {
	first, _, _ := strings.Cut(bases, ",")
	return first
}

// statusKind names a failed reply by its status and, when its body is an
// OpenAI-shaped error, its code ("HTTP 503 account_moving"): which refusal
// it was is what a benchmark's error column needs to say.
func statusKind(resp *http.Response) string {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	_, _ = io.Copy(io.Discard, resp.Body)
	var e struct {
		Error struct {
			Code any `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Code != nil {
		return fmt.Sprintf("HTTP %d %v", resp.StatusCode, e.Error.Code)
	}
	return fmt.Sprintf("HTTP %d", resp.StatusCode)
}
