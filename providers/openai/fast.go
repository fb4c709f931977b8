package openai

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// The non-streamed calls the gateway makes go through fasthttp instead of
// net/http. net/http's client hands every request to two goroutines of its
// own (a connection's writeLoop and readLoop), and each hand-off is a wake-up
// that costs a futex on a small VM; fasthttp writes the request and reads the
// reply on the caller's goroutine, which saves the gateway a sixth of its
// added latency at concurrency 1, a fifth of its CPU per request and dozens of
// allocations per request (cmd/bench shows it). fasthttp speaks
// HTTP/1.1 only: an https upstream gets a pool of connections, not one HTTP/2
// connection.
//
// fasthttp cannot be cancelled: a call ends when the reply is read, or when
// its deadline passes (the connection is then closed). So Chat takes this
// path only when its context has a deadline, as every call from the gateway
// has (it bounds each non-streamed call with the upstream's Timeout): the
// deadline, capped by Timeout, is the call's deadline. A cancellation of the
// context before that deadline is seen before the request is sent, and after
// the call, but does not cut the call short (Fiber's handlers, behind which
// the gateway runs, never cancel their context anyway). A context that can be
// cancelled but has no deadline, or none at all, keeps the net/http path,
// which the streams use too.
//
// The request is the one net/http would send, byte for byte in its body and
// header for header (Accept-Encoding: gzip included, whose replies are
// inflated as net/http does); a configuration whose headers or URL net/http
// would treat specially (a proxy from the environment, Connection or Host
// headers, credentials in the URL, invalid header fields, …) leaves fastChat
// nil, and every call on net/http.

// Settings of the fasthttp client.
const (
	fastMaxConns      = 4096 // per upstream; more wait for a free one until their deadline
	fastIdleConn      = upstream.IdleConnTimeout
	fastReadBuffer    = 32 << 10         // also the largest response header accepted
	fastWriteBuffer   = 16 << 10         // a typical request body fits; bigger ones are written through
	fastDialTimeout   = 10 * time.Second // as NewTransport's dial and TLS handshake timeouts
	fastDialKeepAlive = 30 * time.Second
)

// fastChat is the fasthttp client of one upstream and what each of its
// requests carries besides the body.
type fastChat struct {
	client *fasthttp.Client
	url    string
	// header are the request's header fields in the form net/http writes
	// them (canonical names, trimmed values), Accept included; Host and
	// Content-Length are fasthttp's.
	header [][2][]byte
	// gzip: Accept-Encoding: gzip was added as net/http adds it, so a gzip
	// reply is inflated here as net/http would.
	gzip bool
}

// newFastChat makes the fasthttp client for the upstream at rawURL with the
// header of a non-streamed request (as the net/http path sends it), or returns nil
// when net/http would send something fasthttp would not. tlsConfig, for an
// https upstream, may be nil: the system's roots.
func newFastChat(rawURL string, h http.Header, timeout time.Duration, tlsConfig *tls.Config) *fastChat {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.Opaque != "" || u.Fragment != "" || !isPlainASCII(rawURL) ||
		(u.RawPath != "" && u.EscapedPath() != u.RawPath) {
		return nil // fasthttp sends the URL as written; net/http would escape or refuse it
	}
	if proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err != nil || proxy != nil {
		return nil // fasthttp does not go through proxies
	}
	f := &fastChat{url: rawURL, gzip: true}
	keys := make([]string, 0, len(h)+1)
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		vs := h[k]
		if len(vs) != 1 || !validHeaderName(k) || !validHeaderValue(vs[0]) {
			return nil // net/http would refuse the request; let it say so
		}
		v := strings.Trim(vs[0], " \t")
		if v == "" {
			return nil // net/http and fasthttp treat an empty value differently
		}
		switch k {
		case "Host", "Content-Length", "Transfer-Encoding", "Trailer", "Connection", "Te",
			"Upgrade", "Keep-Alive", "Proxy-Connection", "Expect":
			return nil // managed by net/http itself
		case "Accept-Encoding", "Range":
			f.gzip = false // net/http then leaves the reply's encoding alone
		}
		f.header = append(f.header, [2][]byte{[]byte(k), []byte(v)})
	}
	if f.gzip {
		f.header = append(f.header, [2][]byte{[]byte("Accept-Encoding"), []byte("gzip")})
	}

	host := u.Hostname()
	dialer := &net.Dialer{Timeout: min(fastDialTimeout, timeout), KeepAlive: fastDialKeepAlive}
	handshake := min(fastDialTimeout, timeout)
	if u.Scheme == "https" {
		if tlsConfig == nil {
			tlsConfig = &tls.Config{}
		} else {
			tlsConfig = tlsConfig.Clone()
		}
		if tlsConfig.ServerName == "" {
			tlsConfig.ServerName = host
		}
		tlsConfig.NextProtos = []string{"http/1.1"}
	} else {
		tlsConfig = nil
	}
	f.client = &fasthttp.Client{
		NoDefaultUserAgentHeader: true,
		Dial: func(addr string) (net.Conn, error) {
			tcp, err := dialer.Dial("tcp", addr)
			if err != nil {
				return nil, err
			}
			conn := net.Conn(resetConn{tcp})
			if tlsConfig == nil {
				return conn, nil
			}
			// fasthttp takes a conn with a Handshake method as already TLS.
			tc := tls.Client(conn, tlsConfig)
			_ = conn.SetDeadline(time.Now().Add(handshake))
			if err := tc.Handshake(); err != nil {
				conn.Close()
				return nil, err
			}
			_ = conn.SetDeadline(time.Time{})
			return tc, nil
		},
		MaxConnsPerHost:     fastMaxConns,
		MaxConnWaitTimeout:  timeout,
		MaxIdleConnDuration: fastIdleConn,
		ReadBufferSize:      fastReadBuffer,
		WriteBufferSize:     fastWriteBuffer,
		MaxResponseBodySize: maxReplyBytes,
		// The path is sent as configured, as net/http sends it.
		DisablePathNormalizing:        true,
		DisableHeaderNamesNormalizing: false,
		// The most recently used connection first, so that idle ones age out.
		ConnPoolStrategy: fasthttp.LIFO,
		// A POST is never retried, except (fasthttp always does it) when
		// the upstream closed a kept-alive connection before answering.
		RetryIf: func(*fasthttp.Request) bool { return false },
	}
	return f
}

// chatFast is the non-streamed call on the fasthttp client, bounded by deadline.
func (p *Provider) chatFast(ctx context.Context, body []byte, deadline time.Time) (*shlyuz.ChatResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, errs.Transport(p.cfg.Name, ctx, nil, err, false)
	}
	f := p.fast
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(f.url)
	req.Header.SetMethod(http.MethodPost)
	for _, kv := range f.header {
		req.Header.SetCanonical(kv[0], kv[1])
	}
	req.SetBodyRaw(body)

	err := f.client.DoDeadline(req, resp, deadline)
	if err != nil && staleFast(err) && time.Now().Before(deadline) {
		// The pool handed out connections the upstream had closed (it
		// restarted, say): none of them reached it. Drop them all and send
		// once more on a new connection; stale ones are no upstream failure.
		f.client.CloseIdleConnections()
		resp.Reset()
		err = f.client.DoDeadline(req, resp, deadline)
	}
	if errors.Is(err, fasthttp.ErrTimeout) {
		// The deadline passed (fasthttp's ErrTimeout is no net.Error).
		err = fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
	}
	status := resp.StatusCode()
	// The head was read when the reply has a length or a framing: only its
	// body can then have failed (a failed head resets it to a length of 0).
	headRead := resp.Header.ContentLength() != 0
	if err != nil && !(headRead && status/100 != 2) {
		if headRead && errors.Is(err, fasthttp.ErrBodyTooLarge) {
			return nil, shlyuz.ErrUpstream("The upstream's reply is larger than %d bytes.", maxReplyBytes)
		}
		return nil, errs.Transport(p.cfg.Name, ctx, nil, err, headRead)
	}
	raw := resp.Body()
	gz := f.gzip && bytes.EqualFold(resp.Header.Peek("Content-Encoding"), []byte("gzip"))
	if status/100 != 2 {
		// As net/http's path: what could be read of the error body, errors ignored.
		var data []byte
		if gz {
			data, _ = gunzip(raw, upstream.MaxErrorBytes)
		} else {
			data = bytes.Clone(raw[:min(len(raw), upstream.MaxErrorBytes)])
		}
		h := http.Header{}
		for _, k := range [...]string{"Retry-After-Ms", "Retry-After"} {
			if v := resp.Header.Peek(k); v != nil {
				h[k] = []string{string(v)}
			}
		}
		return nil, statusError(p.cfg.Name, status, h, data, p.now()).FromStatus(status)
	}
	if cl := resp.Header.ContentLength(); cl >= 0 && len(raw) != cl {
		// fasthttp returns what it had when the upstream reset the connection.
		return nil, errs.Transport(p.cfg.Name, ctx, nil, io.ErrUnexpectedEOF, true)
	}
	var data []byte
	if gz {
		if data, err = gunzip(raw, maxReplyBytes+1); err != nil {
			return nil, errs.Transport(p.cfg.Name, ctx, nil, err, true)
		}
		if len(data) > maxReplyBytes {
			return nil, shlyuz.ErrUpstream("The upstream's reply is larger than %d bytes.", maxReplyBytes)
		}
	} else {
		// The body goes back to fasthttp's pool with resp: keep a copy.
		data = bytes.Clone(raw)
	}
	return decodeReply(data)
}

// staleFast reports whether a fasthttp call failed on a kept-alive
// connection the upstream had closed, before any byte of a reply.
func staleFast(err error) bool {
	var reset resetError
	return errors.Is(err, fasthttp.ErrConnectionClosed) || errors.As(err, &reset) || upstream.Stale(err)
}

// resetConn is a connection to the upstream whose reads report a reset as an
// error that is no syscall.ECONNRESET. fasthttp takes a reset while it reads a
// body for the end of the body: it would return a cut reply as complete and
// keep the dead connection in its pool, where the next request fails on it.
// This way the reply is an error and the connection is closed; a reset before
// the first byte of a reply is still retried on a new connection (fasthttp
// takes any error there for a stale kept-alive connection).
type resetConn struct{ net.Conn }

func (c resetConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil && errors.Is(err, syscall.ECONNRESET) {
		err = resetError{err}
	}
	return n, err
}

// resetError is a connection reset, without its syscall.ECONNRESET.
type resetError struct{ err error }

func (e resetError) Error() string { return e.err.Error() }

// gunzip inflates up to limit bytes of a gzip body. An empty body is an empty
// reply, as net/http reads it.
func gunzip(b []byte, limit int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err == io.EOF {
		return []byte{}, nil
	}
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(zr, int64(limit)))
}

// validHeaderName reports whether a header name is an RFC 7230 token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c >= 0x80 || c <= ' ' || c == 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether a header value has no control bytes but tabs.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
