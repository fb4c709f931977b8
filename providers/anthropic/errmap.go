package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// errs are the adapter's reasons for giving up a call.
var errs = upstream.NewErrors("anthropic")

// ErrStreamClosed is what a Next blocked on the upstream returns when Close
// ends the stream. It wraps context.Canceled: closing is the caller's choice,
// never the upstream's fault.
var ErrStreamClosed = errs.Closed

// errNotObject is a tool call's input that is not a JSON object.
var errNotObject = errors.New("not a JSON object")

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
		return wireError{Message: upstream.JSONText(m), Type: upstream.JSONText(top["type"]), Parsed: true}
	}
	return wireError{}
}

// parseErrorValue reads the value of an "error" key: an object or a string.
func parseErrorValue(v []byte) wireError {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil {
		return wireError{Message: upstream.JSONText(v)}
	}
	return wireError{Type: upstream.JSONText(obj["type"]), Message: upstream.JSONText(obj["message"])}
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
	msg := upstream.Clip(we.Message)
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
func statusError(name string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
	we := parseErrorBody(body)
	msg := upstream.Clip(we.Message)
	if msg == "" {
		msg = http.StatusText(status)
	}
	label := strconv.Itoa(status)
	if we.Type != "" && upstream.IsIdentifier(we.Type) {
		label += ", " + we.Type
	}
	cause := fmt.Errorf("upstream %s: HTTP %d: type=%q: %s", name, status, we.Type, msg)
	var e *shlyuz.Error
	switch {
	case status == http.StatusUnauthorized || (status == http.StatusForbidden && !isBilling(we)):
		// Never echo the message: it may quote (part of) our upstream key.
		e = shlyuz.ErrUpstream("The upstream refused the gateway's credentials (HTTP %s).", label)
		cause = fmt.Errorf("upstream %s: HTTP %d: type=%q", name, status, we.Type)
	case status == http.StatusPaymentRequired || (isBilling(we) && status < 500):
		e = shlyuz.ErrUpstream("The upstream's account is out of credits (HTTP %s); retrying this upstream will not help until its operator tops it up.", label)
	case status == 529 || we.Type == "overloaded_error":
		e = shlyuz.ErrProviderUnavailable(upstream.RetryAfterMs(h, now), "The upstream is overloaded (HTTP %s): %s", label, msg)
	case status == http.StatusTooManyRequests:
		e = shlyuz.ErrRateLimited(upstream.RetryAfterMs(h, now), "The upstream is rate limiting requests: %s", msg)
		e.UpstreamFault = true
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		e = shlyuz.ErrUpstreamTimeout("The upstream timed out (HTTP %s): %s", label, msg)
	case status == http.StatusNotFound:
		// The model or the endpoint is unknown there: the route's fault, and
		// another upstream may well serve the model.
		e = shlyuz.ErrUpstream("The upstream does not serve this model or has no Messages endpoint at the configured address (HTTP %s): %s", label, msg).ForModel()
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge ||
		status == http.StatusUnprocessableEntity:
		e = shlyuz.ErrInvalidValue("", "The upstream rejected the request: %s", msg)
		e.Param = nil
	case status >= 500:
		e = shlyuz.ErrUpstream("The upstream failed (HTTP %s): %s", label, msg)
		e.ModelFault = status != http.StatusServiceUnavailable && status != 529 // not a whole-upstream overload
	default:
		e = shlyuz.ErrUpstream("The upstream answered HTTP %s: %s", label, msg)
	}
	e.Cause = cause
	return e
}
