package api

import (
	"bytes"
	"errors"
	"io"
	"math/bits"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/valyala/fasthttp"
)

// Request bodies are read by the gateway itself (fasthttp streams them): a
// body costs memory for the bytes that arrived, never for the size a client
// announced, it is bounded by its route's limit, and a client that sends it
// slower than the minimum rate (after a grace) is dropped with a 408.

// Per-route body limits, besides the API's configured body_limit.
const (
	formBodyLimit     = 1 << 20  // the web area's forms and chat, the operator API
	paymentsBodyLimit = 64 << 10 // an acquirer's notification
)

// bodyRule is how a route's bodies are bounded.
type bodyRule struct {
	limit   int  // bytes after decoding
	inflate bool // a compressed body is inflated (up to limit); else it is a 415
}

// ruleFor is the rule for a request path.
func (s *Server) ruleFor(path string) bodyRule {
	switch {
	case strings.HasPrefix(path, "/api/v1/"), strings.HasPrefix(path, "/api/v1beta/"):
		return bodyRule{limit: s.Opts.BodyLimit, inflate: true}
	case strings.HasPrefix(path, "/payments/"):
		return bodyRule{limit: paymentsBodyLimit}
	}
	return bodyRule{limit: formBodyLimit}
}

// announcedTooLarge marks a request whose announced body is over its route's
// limit: headerReceived takes the body away from fasthttp (which would
// otherwise wait for its first 8 KiB) and readBody answers 413 at once.
const announcedTooLarge = "X-Shlyuz-Body-Over-Limit"

// HeaderReceived runs once a request's headers are read, before its body.
func (s *Server) HeaderReceived(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	h.Del(announcedTooLarge) // only the gateway sets it
	path, _, _ := strings.Cut(string(h.RequestURI()), "?")
	if anthropicRoute(path) {
		s.ReadingAnthropic.Store(h, struct{}{}) // refusals.go
	}
	if h.ContentLength() > s.ruleFor(path).limit {
		h.Set(announcedTooLarge, "1")
		h.SetContentLength(0)
		// A client waiting for "100 Continue" gets the 413 instead, and
		// never sends the body (RFC 9110, 10.1.1).
		h.Del(fiber.HeaderExpect)
	}
	return fasthttp.RequestConfig{}
}

// ReadBody is the first middleware: it reads the request's body under its
// route's rule, so handlers see the whole, decoded body (c.Body()) or never
// run. The memory a body holds counts against the server's body budget until
// the handler returns.
func (s *Server) ReadBody(c *fiber.Ctx) error {
	rule := s.ruleFor(c.Path())
	req := c.Request()
	lease := &BodyLease{Budget: &s.Bodies}
	defer lease.release()
	if err := s.readWhole(c, rule, lease); err != nil {
		if req.IsBodyStream() || len(req.Header.Peek(announcedTooLarge)) > 0 {
			c.Context().SetConnectionClose() // the rest of the body is still on the wire
		}
		return err
	}
	if err := s.decodeBody(c, rule, lease); err != nil {
		return err
	}
	if lease.Held > bigBody {
		s.scavenge.Soon()
	}
	err := c.Next()
	releaseBody(c)
	return err
}

// localBodyDone marks a request whose handler left nothing that reads its
// body once it returned (a non-streamed chat reply is written by then; a
// stream's writer runs after the handler, so a stream never sets it).
const localBodyDone = "shz.bodydone"

// BodyDone tells readBody that the body's buffer may be reused after the
// handler returns.
func BodyDone(c *fiber.Ctx) { c.Locals(localBodyDone, true) }

// releaseBody gives the gateway's own body buffer back to its pool when the
// handler said it is done with it: a large body then costs no allocation of
// its size, and no collection, a request.
func releaseBody(c *fiber.Ctx) {
	if done, _ := c.Locals(localBodyDone).(bool); !done || !OwnBody(c) {
		return
	}
	own := c.Locals(LocalOwnBody).([]byte)
	c.Locals(LocalOwnBody, nil)
	c.Request().SetBodyRaw(nil)
	releaseStaging(own)
}

// readWhole leaves the request's raw body read whole, within the limit.
func (s *Server) readWhole(c *fiber.Ctx, rule bodyRule, lease *BodyLease) error {
	req := c.Request()
	if len(req.Header.Peek(announcedTooLarge)) > 0 {
		return errBodyTooLarge(rule.limit)
	}
	if !req.IsBodyStream() {
		if n := len(req.Body()); n > rule.limit {
			return errBodyTooLarge(rule.limit)
		}
		return nil
	}
	// An announced size over the limit is refused before a byte is read.
	if n := req.Header.ContentLength(); n > rule.limit {
		return errBodyTooLarge(rule.limit)
	}
	body, err := s.readStream(c, rule.limit, lease)
	if err != nil {
		return err
	}
	req.SetBodyRaw(body)
	req.Header.SetContentLength(len(body))
	c.Locals(LocalOwnBody, body)
	return nil
}

// LocalOwnBody holds a request's body when it is a buffer of the gateway's
// own (read or inflated here), not fasthttp's pooled one: a handler may keep
// slices of it past its return without a copy.
const LocalOwnBody = "shz.ownbody"

// OwnBody reports whether c's body is still the gateway's own buffer (a
// handler that set another body, as the web chat does, has fasthttp's).
func OwnBody(c *fiber.Ctx) bool {
	own, _ := c.Locals(LocalOwnBody).([]byte)
	b := c.Body()
	return len(own) > 0 && len(b) == len(own) && &b[0] == &own[0]
}

// OwnedBody is c's body in a buffer nothing reuses: the gateway's own, else a
// copy of fasthttp's pooled one. Spans of it may outlive the handler (a
// stream writer, an upstream call).
func OwnedBody(c *fiber.Ctx) []byte {
	if OwnBody(c) {
		return c.Body()
	}
	return bytes.Clone(c.Body())
}

// readStream reads the body stream up to limit bytes, holding the client to
// the minimum rate after the grace through the connection's read deadline.
func (s *Server) readStream(c *fiber.Ctx, limit int, lease *BodyLease) ([]byte, error) {
	conn := c.Context().Conn()
	start := time.Now()
	body, err := ReadUpTo(c.Request().BodyStream(), limit, c.Request().Header.ContentLength(), lease, func(received int) {
		if conn != nil {
			_ = conn.SetReadDeadline(s.bodyDeadline(start, received))
		}
	}, func() int { return queuedBytes(conn) })
	if conn != nil {
		_ = conn.SetReadDeadline(time.Time{})
	}
	if err == nil {
		return body, nil
	}
	var ne net.Error // escapes (errors.As): made only for a failed read
	switch {
	case errors.As(err, new(*shlyuz.Error)):
		return nil, err
	case errors.As(err, &ne) && ne.Timeout():
		return nil, errBodyTooSlow(s.Opts.MinBodyRate)
	}
	return nil, &shlyuz.Error{Status: 400, Type: shlyuz.TypeInvalidRequest, Code: "invalid_body",
		Message: "The request body could not be read: " + err.Error()}
}

// ReadUpTo reads r to its end, failing with a 413 past limit bytes. Its
// buffer grows with what arrived, never to an announced size before the
// bytes come: doubling, capped at limit+1; with an announced size
// (announced > 0) fourfold, or at once to what the kernel holds unread for
// r's connection (queued, nil: unknown) when that is more, and capped at
// that size (plus one byte, to see
// the end), so that an honest body ends in a buffer of its size after a few
// growths. The buffers it outgrows go back to pools for the next bodies, so
// in the steady state a body allocates about its own size. Each growth is
// taken from the lease; beforeRead is told the count so far before every read.
func ReadUpTo(r io.Reader, limit, announced int, lease *BodyLease, beforeRead func(received int), queued func() int) ([]byte, error) {
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			size := min(max(2*cap(buf), 16<<10), limit+1)
			if announced > 0 && announced <= limit {
				size = min(max(4*cap(buf), 16<<10), announced+1)
				if queued != nil && len(buf) > 0 && size <= announced {
					// Bytes the kernel holds already arrived: a buffer for
					// them all saves growing (and copying) on the way.
					for arrived := len(buf) + queued() + 1; size < arrived && size <= announced; {
						size = min(4*size, announced+1) // a step of the fourfold ladder (pooled buffers)
					}
				}
				if size == announced+1 && size >= 64<<10 {
					// The last buffer of a large body: one its pool can take back
					// (releaseBody), with room after the body for an adapter's
					// fields (shlyuz.BodyRoom).
					size = ClassSize(size + BodyTailroom)
				}
				if size <= len(buf) { // more than announced arrived
					size = min(max(2*cap(buf), 16<<10), limit+1)
				}
			}
			if err := lease.take(size); err != nil {
				return nil, err
			}
			grown := stagingBuffer(size)[:len(buf)]
			copy(grown, buf)
			releaseStaging(buf)
			buf = grown
		}
		if beforeRead != nil {
			beforeRead(len(buf))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return nil, errBodyTooLarge(limit)
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// StagingPools hold the buffers bodies outgrew while they were read, and
// those of bodies whose handler is done with them (releaseBody), by size
// class: 16 KiB times a power of two up to 4 MiB, and from 64 KiB an eighth
// of the octave apart (a body's last buffer is rounded up to one, wasting at
// most an eighth); a sync.Pool lets the collector take them back when
// bodies stop coming.
var StagingPools = func() map[int]*sync.Pool {
	m := map[int]*sync.Pool{16 << 10: {}, 32 << 10: {}, MaxStagingClass: {}}
	for o := 64 << 10; o < MaxStagingClass; o *= 2 {
		for c := o; c < 2*o; c += o / 8 {
			m[c] = &sync.Pool{}
		}
	}
	return m
}()

// BodyTailroom is the spare capacity left after a large announced body: an
// adapter writes the rest of its upstream body there (shlyuz.BodyRoom).
const BodyTailroom = 512

// MaxStagingClass is the largest pooled buffer.
const MaxStagingClass = 4 << 20

// ClassSize is the smallest pool class that holds size bytes (a power of
// two below 64 KiB, an eighth of an octave above), or size itself when no
// class does.
func ClassSize(size int) int {
	if size <= 64<<10 {
		return max(16<<10, 1<<bits.Len(uint(size-1)))
	}
	step := (1 << (bits.Len(uint(size)) - 1)) / 8
	if c := (size + step - 1) / step * step; c <= MaxStagingClass {
		return c
	}
	return size
}

// stagingBuffer is an empty buffer of capacity size, from a pool when size is a class.
func stagingBuffer(size int) []byte {
	if pool := StagingPools[size]; pool != nil {
		if p, ok := pool.Get().(*[]byte); ok {
			return (*p)[:0]
		}
	}
	return make([]byte, 0, size)
}

// releaseStaging gives a buffer back to its pool; nothing may use it after.
func releaseStaging(b []byte) {
	if pool := StagingPools[cap(b)]; pool != nil {
		p := new([]byte) // made here: taking &b would move b to the heap for every small body too
		*p = b[:0]
		pool.Put(p)
	}
}

// bodyDeadline is when the next read must have returned: the grace plus the
// time the bytes received so far buy at the minimum rate.
func (s *Server) bodyDeadline(start time.Time, received int) time.Time {
	bought := time.Duration(float64(received) / float64(s.Opts.MinBodyRate) * float64(time.Second))
	return start.Add(s.Opts.BodyGrace + bought)
}

func errBodyTooLarge(limit int) *shlyuz.Error { return shlyuz.ErrTooLarge(limit) }

func errBodyTooSlow(rate int) *shlyuz.Error {
	return &shlyuz.Error{Status: 408, Type: shlyuz.TypeInvalidRequest, Code: "request_timeout",
		Message: "The request body arrived slower than " + strconv.Itoa(rate) + " bytes a second; the connection is closed."}
}
