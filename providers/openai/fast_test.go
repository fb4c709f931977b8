package openai

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// noNetHTTP fails a test that reaches net/http's client: the calls under test
// must go through fasthttp.
type noNetHTTP struct{ t *testing.T }

func (n noNetHTTP) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("a non-streamed call with a deadline went through net/http: %s %s", r.Method, r.URL)
	return nil, errors.New("net/http used")
}

// fastProvider is an adapter whose non-streamed calls can only go through fasthttp.
func fastProvider(t *testing.T, cfg shlyuz.UpstreamConfig) *Provider {
	t.Helper()
	p := New(cfg)
	if p.fast == nil {
		t.Fatal("no fasthttp client for this configuration")
	}
	p.client = &http.Client{Transport: noNetHTTP{t}}
	t.Cleanup(p.CloseIdleConnections)
	return p
}

// deadlineCtx is a context as the gateway gives Chat: with a deadline.
func deadlineCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestFastChatTimeout: against an upstream that never answers, the call ends
// with a 504 once the upstream's Timeout passed (the context's deadline being
// later), and the connection to the upstream is closed.
func TestFastChatTimeout(t *testing.T) {
	arrived := make(chan context.Context, 1)
	ts := adaptertest.StartFake(t, fake.Options{OnRequest: func(r *http.Request, _ []byte) { arrived <- r.Context() }}, nil).TS
	const timeout = 200 * time.Millisecond
	p := fastProvider(t, shlyuz.UpstreamConfig{Name: "fake", BaseURL: ts.URL + "/v1", Timeout: timeout})

	start := time.Now()
	_, err := p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "fake/fault-hang", false, adaptertest.HelloBody))
	took := time.Since(start)
	e := adaptertest.AsError(t, err, 504, "upstream_timeout", true)
	if !strings.Contains(e.Message, "did not answer in time") {
		t.Errorf("message %q", e.Message)
	}
	if took < timeout || took > timeout+2*time.Second {
		t.Errorf("the call took %v with a Timeout of %v", took, timeout)
	}
	select {
	case rctx := <-arrived:
		select {
		case <-rctx.Done():
		case <-time.After(5 * time.Second):
			t.Error("the upstream request is still open: the connection was not closed")
		}
	default:
		t.Error("the request never reached the upstream")
	}

	// The context's deadline, when earlier than Timeout, bounds the call.
	p = fastProvider(t, shlyuz.UpstreamConfig{Name: "fake", BaseURL: ts.URL + "/v1"})
	start = time.Now()
	_, err = p.Chat(deadlineCtx(t, timeout), adaptertest.Request(t, "fake/fault-hang", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 504, "upstream_timeout", true)
	if took := time.Since(start); took > timeout+2*time.Second {
		t.Errorf("the call took %v with a deadline of %v", took, timeout)
	}
}

// TestFastChatUnreachable: a refused connection and an unknown host are a 502
// "unreachable" that does not name the address.
func TestFastChatUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	p := fastProvider(t, shlyuz.UpstreamConfig{Name: "gone", BaseURL: "http://" + addr + "/v1"})
	start := time.Now()
	_, err = p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "m", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "unreachable") || strings.Contains(e.Message, addr) {
		t.Errorf("message = %q", e.Message)
	}
	if !strings.Contains(fmt.Sprint(e.Cause), "refused") {
		t.Errorf("cause = %v, want a refused connection", e.Cause)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("a refused connection took %v", took)
	}

	p = fastProvider(t, shlyuz.UpstreamConfig{Name: "nxdomain", BaseURL: "http://no-such-host.invalid/v1"})
	_, err = p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "m", false, adaptertest.HelloBody))
	e = adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "unreachable") {
		t.Errorf("message = %q", e.Message)
	}
}

// TestFastChatContext: a context that is done before the call sends nothing.
func TestFastChatContext(t *testing.T) {
	var requests atomic.Int64
	ts := adaptertest.StartFake(t, fake.Options{OnRequest: func(*http.Request, []byte) { requests.Add(1) }}, nil).TS
	p := fastProvider(t, shlyuz.UpstreamConfig{Name: "fake", BaseURL: ts.URL + "/v1"})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cancel()
	_, err := p.Chat(ctx, adaptertest.Request(t, "fake/model", false, adaptertest.HelloBody))
	var e *shlyuz.Error
	if err != context.Canceled || errors.As(err, &e) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = p.Chat(ctx, adaptertest.Request(t, "fake/model", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 504, "upstream_timeout", true)

	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the upstream", n)
	}
}

// TestFastChat checks a reply, the request the upstream got and the reuse of
// the connection.
func TestFastChat(t *testing.T) {
	u := adaptertest.StartFake(t, fake.Options{ReplyTokens: 5, APIKey: "sk-upstream-secret"}, nil)
	f, ts := u.Fake, u.TS
	p := fastProvider(t, shlyuz.UpstreamConfig{
		Name: "fake", BaseURL: ts.URL + "/v1/", APIKey: "sk-upstream-secret",
		Headers: map[string]string{"OpenAI-Project": "proj_1"},
	})
	req := adaptertest.Request(t, "fake/model", false, `{"model":"public/fake/model","messages":[{"role":"user","content":"Hello there, how are you?"}],"temperature":0.2,"x_unknown":{"a":[1, 2]},"provider":{"order":["x"]},"stream":false}`)
	req.MaxTokens = 100
	for i := 0; i < 5; i++ {
		resp, err := p.Chat(deadlineCtx(t, time.Minute), req)
		if err != nil {
			t.Fatal(err)
		}
		if m := adaptertest.OnlyChoice(t, resp).Message; m.Text() != "tok0 tok1 tok2 tok3 tok4" || m.Role != "assistant" {
			t.Errorf("message = %+v", m)
		}
		if want := (shlyuz.Usage{PromptTokens: 6, CompletionTokens: 5, TotalTokens: 11}); resp.Usage != want {
			t.Errorf("usage = %+v, want %+v", resp.Usage, want)
		}
		if resp.FinishReason != "stop" || resp.Created == 0 || resp.SystemFingerprint != "fp_fake" {
			t.Errorf("response = %+v", resp)
		}
	}
	body, _ := buildBody(req, false)
	if got := f.LastRequest(); !bytes.Equal(got, body) {
		t.Errorf("the upstream got\n%s\nwant\n%s", got, body)
	}
	h := f.LastHeader()
	if h.Get("Authorization") != "Bearer sk-upstream-secret" || h.Get("Openai-Project") != "proj_1" ||
		h.Get("Content-Type") != "application/json" || h.Get("Accept") != "application/json" || h.Get("User-Agent") != "shlyuz" {
		t.Errorf("headers = %v", h)
	}
	if n := u.Conns.Load(); n != 1 {
		t.Errorf("%d connections for 5 sequential calls, want 1", n)
	}
}

// TestFastChatFaults maps the upstream's failures as the net/http path does.
func TestFastChatFaults(t *testing.T) {
	ts := adaptertest.StartFake(t, fake.Options{APIKey: "sk-right-key-000000"}, nil).TS
	adaptertest.Faults(t, slices.Concat(BeforeFirstByte, adaptertest.BrokenReplies), adaptertest.ChatOnly, func(t *testing.T, fault string, _ bool) error {
		p := fastProvider(t, shlyuz.UpstreamConfig{Name: "fake", BaseURL: ts.URL + "/v1", APIKey: "sk-right-key-000000"})
		_, err := p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "fake/fault-"+fault, false, adaptertest.HelloBody))
		return err
	}, nil)
	t.Run("wrong key", func(t *testing.T) {
		p := fastProvider(t, shlyuz.UpstreamConfig{Name: "fake", BaseURL: ts.URL + "/v1", APIKey: "sk-wrong-key-123456789"})
		_, err := p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "fake/model", false, adaptertest.HelloBody))
		e := adaptertest.AsError(t, err, 502, "upstream_error", true)
		adaptertest.NotLeaked(t, e, "sk-", "6789", "Incorrect")
	})
}

// rawServer answers every request on a connection with reply(request) and
// records the raw bytes of the requests.
type rawServer struct {
	ln    net.Listener
	mu    sync.Mutex
	raw   [][]byte
	reply func(c net.Conn, raw []byte)
}

func newRawServer(t *testing.T, reply func(c net.Conn, raw []byte)) *rawServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, reply: reply}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *rawServer) serve(c net.Conn) {
	defer c.Close()
	var raw bytes.Buffer
	br := bufio.NewReader(io.TeeReader(c, &raw))
	for {
		raw.Reset()
		r, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		got := bytes.Clone(raw.Bytes()[:raw.Len()-br.Buffered()])
		s.mu.Lock()
		s.raw = append(s.raw, got)
		s.mu.Unlock()
		s.reply(c, got)
	}
}

func (s *rawServer) requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.raw)
}

const okReply = `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`

func writeReply(c net.Conn, status int, header string, body []byte) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n", status, http.StatusText(status), len(body), header)
	c.Write(body)
}

// headerLines is a raw request's request line, then its header lines sorted, then its body.
func headerLines(raw []byte) (lines []string, body []byte) {
	head, body, _ := bytes.Cut(raw, []byte("\r\n\r\n"))
	lines = strings.Split(string(head), "\r\n")
	slices.Sort(lines[1:])
	return lines, body
}

// TestFastChatWire: the fasthttp path sends what net/http sends: the same
// request line, header lines (names spelled the same) and body bytes.
func TestFastChatWire(t *testing.T) {
	s := newRawServer(t, func(c net.Conn, _ []byte) { writeReply(c, 200, "", []byte(okReply)) })
	for i, path := range []string{"/v1/", "/api%2Fopenai/v1"} {
		cfg := shlyuz.UpstreamConfig{
			Name: "raw", BaseURL: "http://" + s.ln.Addr().String() + path, APIKey: "sk-abc",
			Headers: map[string]string{"OpenAI-Project": " proj_1 ", "x-title": "Shlyuz", "HTTP-Referer": "https://example.com/"},
		}
		req := adaptertest.Request(t, "m", false, `{"messages":[{"role":"user","content":"Привет \u003c\"x\"\u003e"}],"temperature":0.2,"stream":true,"stream_options":{"include_usage":true},"x":{"a" : [1, 2]}}`)
		req.MaxTokens = 7
		std := New(cfg)
		defer std.CloseIdleConnections()
		if _, err := std.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		fast := fastProvider(t, cfg)
		if _, err := fast.Chat(deadlineCtx(t, time.Minute), req); err != nil {
			t.Fatal(err)
		}
		raw := s.requests()
		if len(raw) != 2*(i+1) {
			t.Fatalf("%d requests, want %d", len(raw), 2*(i+1))
		}
		compareWire(t, req, raw[2*i], raw[2*i+1])
	}
}

func compareWire(t *testing.T, req *shlyuz.UpstreamRequest, std, fast []byte) {
	t.Helper()
	stdLines, stdBody := headerLines(std)
	fastLines, fastBody := headerLines(fast)
	if !slices.Equal(stdLines, fastLines) {
		t.Errorf("header differs:\nnet/http:\n%s\nfasthttp:\n%s", strings.Join(stdLines, "\n"), strings.Join(fastLines, "\n"))
	}
	if !bytes.Equal(stdBody, fastBody) {
		t.Errorf("body differs:\nnet/http: %s\nfasthttp: %s", stdBody, fastBody)
	}
	if want, _ := buildBody(req, false); !bytes.Equal(fastBody, want) {
		t.Errorf("body %s, want %s", fastBody, want)
	}
}

// TestFastChatGzip: a gzip reply (asked for, as net/http asks) is inflated,
// error bodies included.
func TestFastChatGzip(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	s := newRawServer(t, func(c net.Conn, raw []byte) {
		if !bytes.Contains(raw, []byte("\r\nAccept-Encoding: gzip\r\n")) {
			writeReply(c, 400, "", []byte(`{"error":{"message":"no gzip asked"}}`))
			return
		}
		if bytes.Contains(raw, []byte(`"model":"limited"`)) {
			writeReply(c, 429, "Content-Encoding: gzip\r\nRetry-After: 3\r\n", gz(`{"error":{"message":"slow down","type":"requests"}}`))
			return
		}
		if bytes.Contains(raw, []byte(`"model":"corrupt"`)) {
			writeReply(c, 200, "Content-Encoding: gzip\r\n", gz(okReply)[:20])
			return
		}
		writeReply(c, 200, "Content-Encoding: gzip\r\n", gz(okReply))
	})
	p := fastProvider(t, shlyuz.UpstreamConfig{Name: "raw", BaseURL: "http://" + s.ln.Addr().String() + "/v1"})
	resp, err := p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "m", false, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "stop" || resp.Usage.TotalTokens != 2 {
		t.Errorf("response = %+v", resp)
	}
	_, err = p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "limited", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 429, "rate_limited", true)
	if e.RetryAfter != 3*time.Second || !strings.Contains(e.Message, "slow down") {
		t.Errorf("error %q, RetryAfter %v", e.Message, e.RetryAfter)
	}
	_, err = p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "corrupt", false, adaptertest.HelloBody))
	e = adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "broke off") {
		t.Errorf("message %q", e.Message)
	}
}

// TestFastChatBrokenReplies: a reply cut by a reset (fasthttp then returns
// what it had without an error) or announced too large.
func TestFastChatBrokenReplies(t *testing.T) {
	s := newRawServer(t, func(c net.Conn, raw []byte) {
		switch {
		case bytes.Contains(raw, []byte(`"model":"reset"`)):
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(okReply), okReply[:len(okReply)/2])
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0) // close with a reset
			}
			c.Close()
		case bytes.Contains(raw, []byte(`"model":"huge"`)):
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", maxReplyBytes+1)
			c.Close()
		default:
			writeReply(c, 200, "", []byte(okReply))
		}
	})
	p := fastProvider(t, shlyuz.UpstreamConfig{Name: "raw", BaseURL: "http://" + s.ln.Addr().String() + "/v1"})
	if _, err := p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "ok", false, adaptertest.HelloBody)); err != nil {
		t.Fatal(err)
	}
	_, err := p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "reset", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "broke off") {
		t.Errorf("message %q (cause %v)", e.Message, e.Cause)
	}
	// The reset connection did not go back to the pool.
	if _, err := p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "ok", false, adaptertest.HelloBody)); err != nil {
		t.Fatalf("the call after a reset: %v", err)
	}
	_, err = p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "huge", false, adaptertest.HelloBody))
	e = adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "larger than") {
		t.Errorf("message %q (cause %v)", e.Message, e.Cause)
	}
}

// TestFastChatFallback: what fasthttp would send differently stays on net/http.
func TestFastChatFallback(t *testing.T) {
	// An upstream behind a proxy from the environment stays on net/http.
	proxy, _ := http.ProxyFromEnvironment(&http.Request{URL: &url.URL{Scheme: "https", Host: "api.openai.com"}})
	proxied := proxy != nil
	for _, tc := range []struct {
		name string
		cfg  shlyuz.UpstreamConfig
		fast bool
	}{
		{"plain", shlyuz.UpstreamConfig{BaseURL: "http://127.0.0.1:1/v1"}, true},
		{"https", shlyuz.UpstreamConfig{BaseURL: "https://api.openai.com/v1", APIKey: "sk-x"}, !proxied},
		{"escaped path", shlyuz.UpstreamConfig{BaseURL: "http://h/a%20b/v1"}, true},
		{"path to escape", shlyuz.UpstreamConfig{BaseURL: "http://h/a b/v1"}, false},
		{"own accept-encoding", shlyuz.UpstreamConfig{BaseURL: "http://h/v1", Headers: map[string]string{"Accept-Encoding": "br"}}, true},
		{"connection header", shlyuz.UpstreamConfig{BaseURL: "http://h/v1", Headers: map[string]string{"Connection": "close"}}, false},
		{"host header", shlyuz.UpstreamConfig{BaseURL: "http://h/v1", Headers: map[string]string{"Host": "other"}}, false},
		{"newline in a value", shlyuz.UpstreamConfig{BaseURL: "http://h/v1", Headers: map[string]string{"X-A": "a\r\nX-B: b"}}, false},
		{"bad header name", shlyuz.UpstreamConfig{BaseURL: "http://h/v1", Headers: map[string]string{"X A": "a"}}, false},
		{"empty value", shlyuz.UpstreamConfig{BaseURL: "http://h/v1", Headers: map[string]string{"X-A": " "}}, false},
		{"credentials in the URL", shlyuz.UpstreamConfig{BaseURL: "http://u:p@h/v1"}, false},
		{"not http", shlyuz.UpstreamConfig{BaseURL: "ftp://h/v1"}, false},
		{"no host", shlyuz.UpstreamConfig{BaseURL: "/v1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(tc.cfg)
			if (p.fast != nil) != tc.fast {
				t.Errorf("fasthttp client: %v, want %v", p.fast != nil, tc.fast)
			}
			if p.fast != nil && tc.name == "own accept-encoding" && p.fast.gzip {
				t.Error("gzip asked on top of the configured Accept-Encoding")
			}
		})
	}
}

// TestFastChatTLS: an https upstream, the handshake done by the adapter's dial.
func TestFastChatTLS(t *testing.T) {
	f := fake.New(fake.Options{ReplyTokens: 3})
	ts := httptest.NewUnstartedServer(f)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	ts.StartTLS()
	t.Cleanup(ts.Close)
	t.Cleanup(f.Close)
	cfg := shlyuz.UpstreamConfig{Name: "tls", BaseURL: ts.URL + "/v1"}
	p := fastProvider(t, cfg)
	// The system's roots do not know the test server.
	_, err := p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "fake/model", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(fmt.Sprint(e.Cause), "certificate") {
		t.Errorf("cause %v, want a certificate error", e.Cause)
	}

	roots := x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	h := p.header.Clone()
	h.Set("Accept", "application/json")
	p.fast = newFastChat(p.url, h, p.cfg.Timeout, &tls.Config{RootCAs: roots})
	for i := 0; i < 3; i++ {
		resp, err := p.Chat(deadlineCtx(t, time.Minute), adaptertest.Request(t, "fake/model", false, adaptertest.HelloBody))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage.CompletionTokens != 3 || resp.FinishReason != "stop" {
			t.Errorf("response %+v", resp)
		}
	}
}
