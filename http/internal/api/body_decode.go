package api

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// decodeBody inflates a compressed body (Content-Encoding gzip, deflate or
// br, in the order applied) to at most the route's limit, and leaves it plain
// with the header gone, so no later reader (Fiber's c.Body, fasthttp's
// multipart parser) inflates it again without a bound.
func (s *Server) decodeBody(c *fiber.Ctx, rule bodyRule, lease *BodyLease) error {
	req := c.Request()
	enc := strings.TrimSpace(string(req.Header.Peek(fiber.HeaderContentEncoding)))
	if enc == "" || strings.EqualFold(enc, "identity") {
		req.Header.Del(fiber.HeaderContentEncoding)
		return nil
	}
	if !rule.inflate {
		return errEncodingRefused(enc, "this route takes plain bodies only")
	}
	codings := strings.Split(enc, ",")
	body := req.Body()
	for i := len(codings) - 1; i >= 0; i-- { // the last coding applied is undone first
		out, err := inflate(strings.ToLower(strings.TrimSpace(codings[i])), body, rule.limit, lease)
		if err != nil {
			return err
		}
		body = out
	}
	req.Header.Del(fiber.HeaderContentEncoding)
	req.SetBodyRaw(body)
	req.Header.SetContentLength(len(body))
	c.Locals(LocalOwnBody, body)
	return nil
}

// inflate undoes one content coding, to at most limit bytes. It inflates
// twice: first only counting (no memory held), so a bomb costs CPU up to the
// limit and no buffer; then, within the limit, into a buffer of the size it
// turned out to have.
func inflate(coding string, in []byte, limit int, lease *BodyLease) ([]byte, error) {
	if coding == "identity" {
		return in, nil
	}
	r, err := decoder(coding, in)
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(io.Discard, io.LimitReader(r, int64(limit)+1))
	switch {
	case n > int64(limit):
		return nil, errBodyTooLarge(limit)
	case err != nil:
		return nil, errBadEncoding(coding, err)
	}
	if r, err = decoder(coding, in); err != nil {
		return nil, err
	}
	out, err := ReadUpTo(r, limit, int(n), lease, nil, nil)
	if err != nil && !errors.As(err, new(*shlyuz.Error)) {
		return nil, errBadEncoding(coding, err)
	}
	return out, err
}

// decoder reads in through a content coding.
func decoder(coding string, in []byte) (io.Reader, error) {
	var r io.Reader
	var err error
	switch coding {
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(in))
	case "deflate":
		r, err = zlib.NewReader(bytes.NewReader(in))
	case "br":
		r = brotli.NewReader(bytes.NewReader(in))
	default:
		return nil, errEncodingRefused(coding, "use gzip, deflate or br")
	}
	if err != nil {
		return nil, errBadEncoding(coding, err)
	}
	return r, nil
}

func errEncodingRefused(coding, why string) *shlyuz.Error {
	return &shlyuz.Error{Status: 415, Type: shlyuz.TypeInvalidRequest, Code: "unsupported_content_encoding",
		Message: "The Content-Encoding " + coding + " is not accepted: " + why + "."}
}

func errBadEncoding(coding string, err error) *shlyuz.Error {
	return &shlyuz.Error{Status: 400, Type: shlyuz.TypeInvalidRequest, Code: "invalid_body",
		Message: "The request body is not valid " + coding + ": " + err.Error()}
}

// bigBody is the body size after which the gateway hands freed memory back to
// the system soon, so a burst of large bodies does not leave a large process.
const bigBody = 1 << 20

// BodyBudget bounds the bytes all request bodies in flight hold at once: a
// body that would pass it is answered 503, so no number of large or
// inflating bodies can take the process's memory.
type BodyBudget struct {
	Max  int64
	used atomic.Int64
}

// BodyLease is what one request holds of the budget.
type BodyLease struct {
	Budget *BodyBudget
	Held   int64
}

func (l *BodyLease) take(n int) error {
	if l.Budget.used.Add(int64(n)) > l.Budget.Max {
		l.Budget.used.Add(-int64(n))
		return &shlyuz.Error{Status: 503, Type: shlyuz.TypeUnavailable, Code: "too_many_large_bodies",
			Message: "The gateway is reading too many large request bodies at once; try again in a second.", RetryAfter: time.Second}
	}
	l.Held += int64(n)
	return nil
}

func (l *BodyLease) release() {
	l.Budget.used.Add(-l.Held)
	l.Held = 0
}

// Scavenger returns freed memory to the system once a burst of large bodies
// is over (none came for scavengeAfter), instead of waiting for the
// runtime's slow background pace. During a burst it does nothing: a forced
// collection and the page faults of memory handed back and taken again
// would cost every large request of the burst, and the body budget already
// bounds what the bodies hold.
type Scavenger struct {
	pending atomic.Bool
	last    atomic.Int64 // when the last large body came, in Unix nanoseconds
	// The clock, the timer and the release; nil: the real ones.
	Now   func() time.Time
	After func(time.Duration, func())
	Free  func()
}

// scavengeAfter is the quiet time after which memory is handed back.
const scavengeAfter = 2 * time.Second

// Soon notes a large body and makes sure a release follows the burst.
func (sc *Scavenger) Soon() {
	sc.last.Store(sc.clock().UnixNano())
	if sc.pending.CompareAndSwap(false, true) {
		sc.wait(scavengeAfter)
	}
}

// run releases the memory when the burst is over, else waits for the rest of
// the quiet time.
func (sc *Scavenger) run() {
	if quiet := sc.clock().Sub(time.Unix(0, sc.last.Load())); quiet < scavengeAfter {
		sc.wait(scavengeAfter - quiet)
		return
	}
	sc.pending.Store(false)
	if sc.Free != nil {
		sc.Free()
		return
	}
	debug.FreeOSMemory()
}

func (sc *Scavenger) clock() time.Time {
	if sc.Now != nil {
		return sc.Now()
	}
	return time.Now()
}

func (sc *Scavenger) wait(d time.Duration) {
	if sc.After != nil {
		sc.After(d, sc.run)
		return
	}
	time.AfterFunc(d, sc.run)
}
