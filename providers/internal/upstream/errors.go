package upstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz"
)

// MaxMessage bounds an upstream message copied into an error.
const MaxMessage = 1000

// Clip bounds an upstream message, trimmed of white space, to MaxMessage
// bytes on a rune boundary.
func Clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= MaxMessage {
		return s
	}
	cut := MaxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Malformed is the error for a reply the adapter cannot read; detail says
// what is wrong with it.
func Malformed(detail string) *shlyuz.Error {
	return shlyuz.ErrUpstream("The upstream answered malformed data: %s.", detail)
}

// EndedEarly is the error for a stream the upstream closed before its reply
// was whole.
func EndedEarly() *shlyuz.Error {
	return shlyuz.ErrUpstream("The upstream ended the stream before it finished.")
}

// IsIdentifier reports whether s is a plain identifier (ASCII letters,
// digits, '_', '-' and '.', at most 64 bytes; the empty string is one), safe
// to quote from an upstream's error in ours.
func IsIdentifier(s string) bool {
	if len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch == '_' || ch == '-' || ch == '.' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) {
			return false
		}
	}
	return true
}

// RetryAfter reads Retry-After in seconds or as an HTTP date; 0 when it is
// absent, unreadable or not in the future.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	return RetryAfterOr(h, now, 0)
}

// RetryAfterOr is RetryAfter with def in place of the 0.
func RetryAfterOr(h http.Header, now time.Time, def time.Duration) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return def
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if d, ok := wait(s, time.Second); ok {
			return d
		}
		return def
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return def
}

// maxRetryAfter bounds a wait an upstream asks for: a longer one (or Inf,
// which would overflow a Duration) is read as unreadable.
const maxRetryAfter = 24 * time.Hour

// wait is n units as a Duration, ok when it is above zero and within maxRetryAfter.
func wait(n float64, unit time.Duration) (time.Duration, bool) {
	if !(n > 0 && n*float64(unit) <= float64(maxRetryAfter)) {
		return 0, false
	}
	return time.Duration(n * float64(unit)), true
}

// RetryAfterMs reads OpenAI's retry-after-ms, then Retry-After as RetryAfter does.
func RetryAfterMs(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			if d, ok := wait(ms, time.Millisecond); ok {
				return d
			}
		}
	}
	return RetryAfter(h, now)
}

// Errors are one adapter's reasons for giving up a call and its wording of
// transport failures.
type Errors struct {
	// Closed is what a Next blocked on the upstream returns when Close ended
	// the stream (the adapter's ErrStreamClosed). It wraps context.Canceled:
	// closing is the caller's choice, never the upstream's fault.
	Closed error
	// Idle and FirstByte are the causes a call's context is cancelled with
	// when its stream went quiet for longer than IdleTimeout, or when its
	// response headers did not come within FirstByteTimeout.
	Idle, FirstByte error
	// Label begins the text of a transport error's cause, before the
	// upstream's name; "upstream" when empty.
	Label string
	// Classify, when set, maps a transport failure particular to the
	// upstream (an untrusted certificate, say) before it is called
	// unreachable; nil leaves it to the common wording. Transport sets the
	// cause of what it returns.
	Classify func(err error) *shlyuz.Error
}

// NewErrors are the errors of the adapter with that name: "<name>: stream
// closed" (wrapping context.Canceled), "<name>: upstream idle" and
// "<name>: no first byte from upstream".
func NewErrors(name string) *Errors {
	return &Errors{
		Closed:    fmt.Errorf("%s: stream closed: %w", name, context.Canceled),
		Idle:      errors.New(name + ": upstream idle"),
		FirstByte: errors.New(name + ": no first byte from upstream"),
	}
}

func (x *Errors) label() string {
	if x.Label == "" {
		return "upstream"
	}
	return x.Label
}

// Transport maps a failure to reach the upstream (broken == false) or to read
// the rest of its reply (broken == true); cause is the cancellation cause of
// the call's context, if any. A caller's cancellation comes back as the
// parent context's error, untouched.
func (x *Errors) Transport(upstream string, parent context.Context, cause, err error, broken bool) error {
	if perr := parent.Err(); perr != nil && errors.Is(perr, context.Canceled) {
		return perr
	}
	switch {
	case cause == x.Idle:
		e := shlyuz.ErrUpstreamTimeout("The upstream stopped sending the stream.")
		e.Cause = fmt.Errorf("%s %s: idle timeout: %w", x.label(), upstream, err)
		return e
	case cause == x.FirstByte, errors.Is(err, context.DeadlineExceeded), IsTimeout(err),
		errors.Is(parent.Err(), context.DeadlineExceeded): // the deadline passed, whatever the read error says (a TLS read on a connection closed for it)
		e := shlyuz.ErrUpstreamTimeout("The upstream did not answer in time.")
		e.Cause = fmt.Errorf("%s %s: %w", x.label(), upstream, err)
		return e
	}
	var e *shlyuz.Error
	if x.Classify != nil {
		e = x.Classify(err)
	}
	if e == nil {
		msg := "The upstream is unreachable."
		if broken {
			msg = "The upstream broke off its reply."
		}
		e = shlyuz.ErrUpstream("%s", msg)
	}
	e.Cause = fmt.Errorf("%s %s: %w", x.label(), upstream, err)
	return e
}

// Call maps what went wrong on the way to a reply: a *shlyuz.Error (a request
// that could not be built or translated, a refused credential) passes as it
// is, the rest as Transport maps it.
func (x *Errors) Call(upstream string, parent context.Context, cause, err error, broken bool) error {
	var e *shlyuz.Error
	if errors.As(err, &e) {
		return e
	}
	return x.Transport(upstream, parent, cause, err, broken)
}

// IsTimeout reports whether err is a network operation's timeout.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
