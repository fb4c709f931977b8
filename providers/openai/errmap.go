package openai

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
var ErrStreamClosed = fmt.Errorf("openai: stream closed: %w", context.Canceled)

// Causes of the stream context's cancellation, told apart in Next.
var (
	errIdle      = errors.New("openai: upstream idle")
	errFirstByte = errors.New("openai: no first byte from upstream")
)

// maxMessage bounds an upstream message copied into an error.
const maxMessage = 1000

// wireError is the useful part of an upstream error body, in any of the
// shapes OpenAI-compatible servers send: {"error":{"message","type","code","param"}},
// {"error":"text"} (Ollama), {"object":"error","message",...} (vLLM, Mistral),
// with a numeric code (OpenRouter) or a nested error.error (Yandex).
type wireError struct {
	Message string
	Type    string
	Code    string
	Param   string
	Parsed  bool // the body was a recognisable error object
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
	if m, ok := top["message"]; ok {
		we := wireError{Message: jsonText(m), Type: jsonText(top["type"]), Code: jsonText(top["code"]), Param: jsonText(top["param"]), Parsed: true}
		return we
	}
	if d, ok := top["detail"]; ok { // FastAPI-style servers
		return wireError{Message: jsonText(d), Parsed: true}
	}
	return wireError{}
}

// parseErrorValue reads the value of an "error" key: an object or a string.
func parseErrorValue(v []byte) wireError {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil {
		return wireError{Message: jsonText(v)}
	}
	we := wireError{
		Message: jsonText(obj["message"]),
		Type:    jsonText(obj["type"]),
		Code:    jsonText(obj["code"]),
		Param:   jsonText(obj["param"]),
	}
	if we.Message == "" {
		if inner, ok := obj["error"]; ok { // Yandex: error.error
			we.Message = jsonText(inner)
		}
	}
	return we
}

// jsonText renders a raw JSON scalar as text: strings unquoted, numbers as
// written, null and absent as "", anything else compact.
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

func malformed(detail string) *shlyuz.Error {
	return shlyuz.ErrUpstream("The upstream answered malformed data: %s.", detail)
}

// upstreamStreamError is an error event inside a 200 stream.
func upstreamStreamError(v []byte) *shlyuz.Error {
	we := parseErrorValue(v)
	msg := clip(we.Message)
	if msg == "" {
		msg = "no message"
	}
	e := shlyuz.ErrUpstream("The upstream reported an error: %s", msg)
	e.Cause = fmt.Errorf("upstream stream error: type=%q code=%q: %s", we.Type, we.Code, msg)
	return e
}

// statusError maps a non-2xx upstream reply to the error the client sees.
func statusError(upstream string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
	we := parseErrorBody(body)
	msg := clip(we.Message)
	if msg == "" {
		msg = http.StatusText(status)
	}
	cause := fmt.Errorf("upstream %s: HTTP %d: type=%q code=%q: %s", upstream, status, we.Type, we.Code, msg)
	var e *shlyuz.Error
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		// Never echo the message: it may quote (part of) our upstream key.
		if we.Code != "" && safeCode(we.Code) {
			e = shlyuz.ErrUpstream("The upstream refused the gateway's credentials (HTTP %d, %s).", status, we.Code)
		} else {
			e = shlyuz.ErrUpstream("The upstream refused the gateway's credentials (HTTP %d).", status)
		}
		cause = fmt.Errorf("upstream %s: HTTP %d: type=%q code=%q", upstream, status, we.Type, we.Code)
	case status == http.StatusTooManyRequests && (we.Type == "insufficient_quota" || we.Code == "insufficient_quota"):
		e = shlyuz.ErrUpstream("The upstream's quota is exhausted (insufficient_quota); retrying this upstream will not help until its operator tops it up.")
	case status == http.StatusPaymentRequired:
		e = shlyuz.ErrUpstream("The upstream's account is out of credits (HTTP 402); retrying this upstream will not help until its operator tops it up.")
	case status == http.StatusTooManyRequests:
		e = shlyuz.ErrRateLimited(retryAfter(h, now), "The upstream is rate limiting requests: %s", msg)
		e.UpstreamFault = true
	case status == http.StatusRequestTimeout:
		e = shlyuz.ErrUpstreamTimeout("The upstream timed out (HTTP 408): %s", msg)
	case status == http.StatusNotFound && !we.Parsed:
		// A bare 404 (an HTML or text page) is a wrong base URL, not the client's fault.
		e = shlyuz.ErrUpstream("The upstream has no chat completions endpoint at the configured address (HTTP 404).")
	case status == http.StatusBadRequest || status == http.StatusNotFound ||
		status == http.StatusRequestEntityTooLarge || status == http.StatusUnprocessableEntity:
		e = shlyuz.ErrInvalidValue(we.Param, "The upstream rejected the request: %s", msg)
		if we.Param == "" {
			e.Param = nil
		}
	case status >= 500:
		e = shlyuz.ErrUpstream("The upstream failed (HTTP %d): %s", status, msg)
	default:
		e = shlyuz.ErrUpstream("The upstream answered HTTP %d: %s", status, msg)
	}
	e.Cause = cause
	return e
}

// safeCode reports whether an upstream error code is a plain identifier, safe to show.
func safeCode(c string) bool {
	if len(c) > 64 {
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
