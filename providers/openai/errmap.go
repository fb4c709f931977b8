package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// errs are the adapter's reasons for giving up a call.
var errs = upstream.NewErrors("openai")

// ErrStreamClosed is what a Next blocked on the upstream returns when Close
// ends the stream. It wraps context.Canceled: closing is the caller's choice,
// never the upstream's fault.
var ErrStreamClosed = errs.Closed

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
		we := wireError{Message: upstream.JSONText(m), Type: upstream.JSONText(top["type"]), Code: upstream.JSONText(top["code"]), Param: upstream.JSONText(top["param"]), Parsed: true}
		return we
	}
	if d, ok := top["detail"]; ok { // FastAPI-style servers
		return wireError{Message: upstream.JSONText(d), Parsed: true}
	}
	return wireError{}
}

// parseErrorValue reads the value of an "error" key: an object or a string.
func parseErrorValue(v []byte) wireError {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil {
		return wireError{Message: upstream.JSONText(v)}
	}
	we := wireError{
		Message: upstream.JSONText(obj["message"]),
		Type:    upstream.JSONText(obj["type"]),
		Code:    upstream.JSONText(obj["code"]),
		Param:   upstream.JSONText(obj["param"]),
	}
	if we.Message == "" {
		if inner, ok := obj["error"]; ok { // Yandex: error.error
			we.Message = upstream.JSONText(inner)
		}
	}
	return we
}

// upstreamStreamError is an error event inside a 200 stream.
func upstreamStreamError(v []byte) *shlyuz.Error {
	we := parseErrorValue(v)
	msg := upstream.Clip(we.Message)
	if msg == "" {
		msg = "no message"
	}
	e := shlyuz.ErrUpstream("The upstream reported an error: %s", msg)
	e.Cause = fmt.Errorf("upstream stream error: type=%q code=%q: %s", we.Type, we.Code, msg)
	return e
}

// statusError maps a non-2xx upstream reply to the error the client sees.
func statusError(name string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
	we := parseErrorBody(body)
	msg := upstream.Clip(we.Message)
	if msg == "" {
		msg = http.StatusText(status)
	}
	cause := fmt.Errorf("upstream %s: HTTP %d: type=%q code=%q: %s", name, status, we.Type, we.Code, msg)
	var e *shlyuz.Error
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		// Never echo the message: it may quote (part of) our upstream key.
		if we.Code != "" && upstream.IsIdentifier(we.Code) {
			e = shlyuz.ErrUpstream("The upstream refused the gateway's credentials (HTTP %d, %s).", status, we.Code)
		} else {
			e = shlyuz.ErrUpstream("The upstream refused the gateway's credentials (HTTP %d).", status)
		}
		cause = fmt.Errorf("upstream %s: HTTP %d: type=%q code=%q", name, status, we.Type, we.Code)
	case status == http.StatusTooManyRequests && (we.Type == "insufficient_quota" || we.Code == "insufficient_quota"):
		e = shlyuz.ErrUpstream("The upstream's quota is exhausted (insufficient_quota); retrying this upstream will not help until its operator tops it up.")
	case status == http.StatusPaymentRequired:
		e = shlyuz.ErrUpstream("The upstream's account is out of credits (HTTP 402); retrying this upstream will not help until its operator tops it up.")
	case status == http.StatusTooManyRequests:
		e = shlyuz.ErrRateLimited(upstream.RetryAfterMs(h, now), "The upstream is rate limiting requests: %s", msg)
		e.UpstreamFault = true
	case status == http.StatusRequestTimeout:
		e = shlyuz.ErrUpstreamTimeout("The upstream timed out (HTTP 408): %s", msg)
	case status == http.StatusNotFound && !we.Parsed:
		// A bare 404 (an HTML or text page) is a wrong base URL, not the client's fault.
		e = shlyuz.ErrUpstream("The upstream has no chat completions endpoint at the configured address (HTTP 404).")
	case status == http.StatusNotFound:
		// The model is unknown there (OpenAI, vLLM, Ollama answer so): the
		// route's fault, and another upstream may well serve the model.
		e = shlyuz.ErrUpstream("The upstream does not serve the model (HTTP 404): %s", msg).ForModel()
	case status == http.StatusBadRequest && (we.Code == "moderation_blocked" || we.Code == "content_policy_violation" || we.Type == "image_generation_user_error"):
		e = shlyuz.ErrContentPolicy("The upstream's safety system refused the request: %s", msg)
	case status == http.StatusBadRequest ||
		status == http.StatusRequestEntityTooLarge || status == http.StatusUnprocessableEntity:
		e = shlyuz.ErrInvalidValue(we.Param, "The upstream rejected the request: %s", msg)
		if we.Param == "" {
			e.Param = nil
		}
	case status >= 500:
		e = shlyuz.ErrUpstream("The upstream failed (HTTP %d): %s", status, msg)
		e.ModelFault = status != http.StatusServiceUnavailable // not a whole-upstream overload
	default:
		e = shlyuz.ErrUpstream("The upstream answered HTTP %d: %s", status, msg)
	}
	e.Cause = cause
	return e
}
