package anthropic

import (
	"context"
	"encoding/json"
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

// ErrStreamClosed is what a Next blocked on the upstream returns when Close
// ends the stream. It wraps context.Canceled: closing is the caller's choice,
// never the upstream's fault.
var ErrStreamClosed = fmt.Errorf("anthropic: stream closed: %w", context.Canceled)

// Causes of the stream context's cancellation, told apart in Next.
var (
	errIdle      = errors.New("anthropic: upstream idle")
	errFirstByte = errors.New("anthropic: no first byte from upstream")
	errNotObject = errors.New("not a JSON object")
)

// maxMessage bounds an upstream message copied into an error.
const maxMessage = 1000

// wireError is Anthropic's error: {"type":"error","error":{"type","message"},"request_id"}.
type wireError struct {
	Type    string
	Message string
	Parsed  bool // the body was a recognisable error
}

func parseErrorBody(body []byte) wireError {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return wireError{}
	}
	if e, ok := top["error"]; ok && !isNull(e) {
		we := parseErrorValue(e)
		we.Parsed = true
		return we
	}
	if m, ok := top["message"]; ok { // a proxy's flat error
		return wireError{Message: jsonText(m), Type: jsonText(top["type"]), Parsed: true}
	}
	return wireError{}
}

// parseErrorValue reads the value of an "error" key: an object or a string.
func parseErrorValue(v []byte) wireError {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil {
		return wireError{Message: jsonText(v)}
	}
	return wireError{Type: jsonText(obj["type"]), Message: jsonText(obj["message"])}
}

// jsonText renders a raw JSON scalar as text: strings unquoted, null and absent as "".
func jsonText(v json.RawMessage) string {
	if len(v) == 0 || isNull(v) {
		return ""
	}
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return ""
	}
	return string(v)
}

// clip bounds an upstream message to maxMessage bytes on a rune boundary.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// safeType reports whether an upstream error type is a plain identifier, safe to show.
func safeType(c string) bool {
	if c == "" || len(c) > 64 {
		return false
	}
	for i := 0; i < len(c); i++ {
		ch := c[i]
		if !(ch == '_' || ch == '-' || ch == '.' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) {
			return false
		}
	}
	return true
}

func malformed(detail string) *shlyuz.Error {
	return shlyuz.ErrUpstream("The upstream answered malformed data: %s.", detail)
}

// isBilling reports whether an error is about the upstream account's money,
// which no retry on this upstream fixes: Anthropic says so with a 400
// invalid_request_error ("Your credit balance is too low…"), a 402
// billing_error, or a 403 in some regions.
func isBilling(we wireError) bool {
	if we.Type == "billing_error" {
		return true
	}
	m := strings.ToLower(we.Message)
	return strings.Contains(m, "credit balance") || strings.Contains(m, "billing") ||
		strings.Contains(m, "purchase credits")
}

// eventError maps an error that arrived with (or after) an HTTP 200: an
// `event: error` in a stream, or an error object as a 200 body. Its type is
// all there is to go by.
func eventError(we wireError) *shlyuz.Error {
	msg := clip(we.Message)
	if msg == "" {
		msg = "no message"
	}
	var e *shlyuz.Error
	switch we.Type {
	case "overloaded_error":
		e = shlyuz.ErrProviderUnavailable(0, "The upstream is overloaded (overloaded_error): %s", msg)
	case "rate_limit_error":
		e = shlyuz.ErrRateLimited(0, "The upstream is rate limiting requests: %s", msg)
		e.UpstreamFault = true
	case "timeout_error":
		e = shlyuz.ErrUpstreamTimeout("The upstream timed out: %s", msg)
	default:
		e = shlyuz.ErrUpstream("The upstream reported an error: %s", msg)
	}
	e.Cause = fmt.Errorf("upstream error event: type=%q: %s", we.Type, msg)
	return e
}

// statusError maps a non-2xx upstream reply to the error the client sees.
func statusError(upstream string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
	we := parseErrorBody(body)
	msg := clip(we.Message)
	if msg == "" {
		msg = http.StatusText(status)
	}
	label := strconv.Itoa(status)
	if safeType(we.Type) {
		label += ", " + we.Type
	}
	cause := fmt.Errorf("upstream %s: HTTP %d: type=%q: %s", upstream, status, we.Type, msg)
	var e *shlyuz.Error
	switch {
	case status == http.StatusUnauthorized || (status == http.StatusForbidden && !isBilling(we)):
		// Never echo the message: it may quote (part of) our upstream key.
		e = shlyuz.ErrUpstream("The upstream refused the gateway's credentials (HTTP %s).", label)
		cause = fmt.Errorf("upstream %s: HTTP %d: type=%q", upstream, status, we.Type)
	case status == http.StatusPaymentRequired || (isBilling(we) && status < 500):
		e = shlyuz.ErrUpstream("The upstream's account is out of credits (HTTP %s); retrying this upstream will not help until its operator tops it up.", label)
	case status == 529 || we.Type == "overloaded_error":
		e = shlyuz.ErrProviderUnavailable(retryAfter(h, now), "The upstream is overloaded (HTTP %s): %s", label, msg)
	case status == http.StatusTooManyRequests:
		e = shlyuz.ErrRateLimited(retryAfter(h, now), "The upstream is rate limiting requests: %s", msg)
		e.UpstreamFault = true
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		e = shlyuz.ErrUpstreamTimeout("The upstream timed out (HTTP %s): %s", label, msg)
	case status == http.StatusNotFound:
		// The model or the endpoint is unknown there: the route's fault, and
		// another upstream may well serve the model.
		e = shlyuz.ErrUpstream("The upstream does not serve this model or has no Messages endpoint at the configured address (HTTP %s): %s", label, msg)
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge ||
		status == http.StatusUnprocessableEntity:
		e = shlyuz.ErrInvalidValue("", "The upstream rejected the request: %s", msg)
		e.Param = nil
	case status >= 500:
		e = shlyuz.ErrUpstream("The upstream failed (HTTP %s): %s", label, msg)
	default:
		e = shlyuz.ErrUpstream("The upstream answered HTTP %s: %s", label, msg)
	}
	e.Cause = cause
	return e
}

// retryAfter reads retry-after-ms, then Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// transportError maps a failure to reach the upstream (broken == false) or to
// read the rest of its reply (broken == true). A caller's cancellation comes
// back as the context's error, untouched.
func transportError(upstream string, parent context.Context, cause error, err error, broken bool) error {
	if perr := parent.Err(); perr != nil && errors.Is(perr, context.Canceled) {
		return perr
	}
	switch {
	case cause == errIdle:
		e := shlyuz.ErrUpstreamTimeout("The upstream stopped sending the stream.")
		e.Cause = fmt.Errorf("upstream %s: idle timeout: %w", upstream, err)
		return e
	case cause == errFirstByte, errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		e := shlyuz.ErrUpstreamTimeout("The upstream did not answer in time.")
		e.Cause = fmt.Errorf("upstream %s: %w", upstream, err)
		return e
	}
	msg := "The upstream is unreachable."
	if broken {
		msg = "The upstream broke off its reply."
	}
	e := shlyuz.ErrUpstream("%s", msg)
	e.Cause = fmt.Errorf("upstream %s: %w", upstream, err)
	return e
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
