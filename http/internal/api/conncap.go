package api

import (
	"bytes"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/valyala/fasthttp"
)

// CapListener caps the connections open at once: one over the cap is answered
// a JSON 503 and closed, not left waiting in the backlog or handed to
// fasthttp (whose own refusal is plain text). A connection it hands on must
// send its first byte within firstByte: fasthttp (with ReduceMemoryUsage)
// waits for a connection's first byte without a deadline, so one that never
// sends anything would otherwise stay open for good.
type CapListener struct {
	net.Listener
	Max       int64
	FirstByte time.Duration
	open      atomic.Int64
}

// errTooManyConns is the refusal of a connection over the cap.
var errTooManyConns = &shlyuz.Error{Status: 503, Type: shlyuz.TypeUnavailable, Code: "too_many_connections",
	Message: "The gateway has too many open connections; try again in a second.", RetryAfter: time.Second}

// The whole answers to a connection over the cap: in Anthropic's shape to a
// request for a Messages route, in OpenAI's to any other.
var (
	refusedFull          = refusalFor(errTooManyConns, "/")
	refusedFullAnthropic = refusalFor(errTooManyConns, "/api/v1/messages")
)

// refusalFor is the whole HTTP answer e on path, closing the connection.
func refusalFor(e *shlyuz.Error, path string) []byte {
	body := append(ErrorJSON(path, e), '\n')
	return []byte("HTTP/1.1 " + strconv.Itoa(e.Status) + " " + fasthttp.StatusMessage(e.Status) + "\r\n" +
		"Content-Type: application/json\r\nRetry-After: " + RetryAfter(e) + "\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body))
}

func (l *CapListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.Max {
			l.open.Add(-1)
			go refuse(c)
			continue
		}
		// fasthttp sets its ReadTimeout once the first byte is in.
		_ = c.SetReadDeadline(time.Now().Add(l.FirstByte))
		return &CappedConn{Conn: c, l: l}, nil
	}
}

// refusing counts the connections over the cap whose request line is being
// read; past maxRefusing a refusal answers at once, without the route.
var refusing atomic.Int64

const maxRefusing = 1024

// refuse answers a connection over the cap and closes it. It reads the
// request line first (a quarter second at most), to answer in the route's
// error shape, and so that the close does not reset a request still unread.
func refuse(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	answer := refusedFull
	if refusing.Add(1) <= maxRefusing && anthropicRoute(requestPath(c, 250*time.Millisecond)) {
		answer = refusedFullAnthropic
	}
	refusing.Add(-1)
	_, _ = c.Write(answer)
}

// requestPath reads c until its request line ends (1 KiB at most, within
// wait) and returns the line's path, or "" when none came.
func requestPath(c net.Conn, wait time.Duration) string {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	var buf [1 << 10]byte
	for n := 0; n < len(buf); {
		m, err := c.Read(buf[n:])
		n += m
		if path, ok := linePath(buf[:n], n == len(buf)); ok {
			return string(path)
		}
		if err != nil {
			return ""
		}
	}
	return ""
}

// linePath is the path of the HTTP request line at the start of b (a span
// of b: every request's line is read, and it allocates nothing); false
// while b holds no whole line, unless full (b is all there will be).
func linePath(b []byte, full bool) ([]byte, bool) {
	line, _, ok := bytes.Cut(b, []byte("\n"))
	if !ok && !full {
		return nil, false
	}
	var target []byte
	if bytes.IndexFunc(line, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
		f := bytes.Fields(line) // Unicode's spaces split fields too
		if len(f) < 2 {
			return nil, true
		}
		target = f[1]
	} else {
		var ok bool
		if _, target, ok = nextField(line); !ok { // method, target, version
			return nil, true
		}
		target, _, _ = nextField(target)
	}
	path, _, _ := bytes.Cut(target, []byte("?"))
	return path, true
}

// nextField cuts b after its first field, as bytes.Fields splits: the field
// and what follows it; ok is false when b holds no field.
func nextField(b []byte) (field, rest []byte, ok bool) {
	i := 0
	for i < len(b) && asciiSpace(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !asciiSpace(b[j]) {
		j++
	}
	return b[i:j], b[j:], j > i
}

// CappedConn gives its place back once, when closed. It also knows whether
// the request it is reading is for a Messages route, for fasthttp's refusal
// of headers it could not read (refusals.go): it reads the line of its first
// request, and of each next one once the one before reached the handler and
// returned (a request pipelined behind another, already read ahead with it,
// keeps OpenAI's shape). fasthttp reads a connection and runs its handlers in
// one goroutine, so these fields need no lock.
type CappedConn struct {
	net.Conn
	l    *CapListener
	once sync.Once

	head      [128]byte // the request's first bytes, until its line is known
	headN     int
	read      bool // the request's line is known
	anthropic bool // it names a Messages route
	Served    bool // the request reached the handler
}

// Read reads as the connection does, and looks at a request's line
// (fasthttp reads a connection's first byte alone, then the rest).
func (c *CappedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.read && n > 0 {
		c.headN += copy(c.head[c.headN:], p[:n])
		if path, ok := linePath(c.head[:c.headN], c.headN == len(c.head)); ok {
			c.read, c.Served = true, false
			c.anthropic = anthropicPath(path)
		}
	}
	return n, err
}

// Next readies c to read its next request's line, once a request's handler
// returned (its body read or the connection to be closed).
func (c *CappedConn) Next() {
	c.read, c.headN = false, 0
}

func (c *CappedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}
