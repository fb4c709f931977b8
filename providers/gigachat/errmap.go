package gigachat

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/sberauth"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// errs are the adapter's reasons for giving up a call; a certificate the
// gateway does not trust is a failure of its own.
var errs = func() *upstream.Errors {
	e := upstream.NewErrors("gigachat")
	e.Label = "gigachat"
	e.Classify = func(err error) *shlyuz.Error {
		if isCertError(err) {
			return shlyuz.ErrUpstream("GigaChat's TLS certificate is not trusted by the gateway; %s.", certHint)
		}
		return nil
	}
	return e
}()

// ErrStreamClosed is what a Next blocked on the upstream returns when Close
// ends the stream. It wraps context.Canceled: closing is the caller's choice,
// never the upstream's fault.
var ErrStreamClosed = errs.Closed

// errorBody is GigaChat's error, {"status":N,"message":"…"}; the shapes
// {"code":N,"message"} (OAuth) and {"error":{"message"}} are read too.
type errorBody struct {
	Status  json.RawMessage `json:"status"`
	Code    json.RawMessage `json:"code"`
	Message json.RawMessage `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// parseError reads an error body; ok when it is one.
func parseError(body []byte) (status int, msg string, ok bool) {
	var eb errorBody
	if json.Unmarshal(body, &eb) != nil {
		return 0, "", false
	}
	if len(eb.Error) > 0 && string(eb.Error) != "null" {
		var inner struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(eb.Error, &inner) == nil {
			return 0, inner.Message, true
		}
		var s string
		if json.Unmarshal(eb.Error, &s) == nil {
			return 0, s, true
		}
		return 0, "", true
	}
	if len(eb.Message) == 0 {
		return 0, "", false
	}
	_ = json.Unmarshal(eb.Message, &msg)
	status, _ = strconv.Atoi(string(eb.Status))
	return status, msg, true
}

// bodyError is the error a JSON body (in place of a reply or a chunk) says, or nil.
func bodyError(body []byte) *shlyuz.Error {
	status, msg, ok := parseError(body)
	if !ok {
		return nil
	}
	msg = upstream.Clip(msg)
	if msg == "" {
		msg = "no message"
	}
	var e *shlyuz.Error
	if status > 0 {
		e = shlyuz.ErrUpstream("The upstream reported an error (status %d): %s", status, msg)
	} else {
		e = shlyuz.ErrUpstream("The upstream reported an error: %s", msg)
	}
	e.Cause = fmt.Errorf("upstream error body: status=%d: %s", status, msg)
	return e
}

// statusError maps a non-2xx reply of the chat or files endpoint.
func statusError(name string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
	_, msg, parsed := parseError(body)
	msg = upstream.Clip(msg)
	if msg == "" {
		msg = http.StatusText(status)
	}
	cause := fmt.Errorf("gigachat %s: HTTP %d: %s", name, status, msg)
	var e *shlyuz.Error
	switch {
	case status == http.StatusUnauthorized:
		// Reached only when a fresh token was refused too. Never echo the body.
		e = shlyuz.ErrUpstream("GigaChat refused the gateway's credentials (HTTP 401) even with a fresh access token.")
	case status == http.StatusForbidden:
		e = shlyuz.ErrUpstream("GigaChat denied the gateway access (HTTP 403); the operator must check the account's scope and models.")
	case status == http.StatusPaymentRequired:
		e = shlyuz.ErrUpstream("GigaChat's token package for this model is exhausted (HTTP 402 Payment Required); retrying this upstream will not help until its operator tops it up.")
	case status == http.StatusTooManyRequests:
		e = shlyuz.ErrRateLimited(upstream.RetryAfter(h, now), "GigaChat is rate limiting requests: %s", msg)
		e.UpstreamFault = true
	case status == http.StatusRequestTimeout:
		e = shlyuz.ErrUpstreamTimeout("GigaChat timed out (HTTP 408): %s", msg)
	case status == http.StatusNotFound:
		// The model name or the base URL is the operator's: not the client's fault.
		e = shlyuz.ErrUpstream("GigaChat does not know the model or the endpoint (HTTP 404): %s", msg).ForModel()
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge ||
		status == http.StatusUnsupportedMediaType || status == http.StatusUnprocessableEntity:
		e = shlyuz.ErrInvalidValue("", "GigaChat rejected the request (HTTP %d): %s", status, msg)
		e.Param = nil
	case status >= 500:
		e = shlyuz.ErrUpstream("GigaChat failed (HTTP %d): %s", status, msg)
		e.ModelFault = status != http.StatusServiceUnavailable // not a whole-upstream overload
	default:
		e = shlyuz.ErrUpstream("GigaChat answered HTTP %d: %s", status, msg)
	}
	if !parsed && status != http.StatusUnauthorized {
		cause = fmt.Errorf("gigachat %s: HTTP %d (body not an error object)", name, status)
	}
	e.Cause = cause
	return e
}

// isCertError reports whether err is a failed verification of the server's certificate.
var isCertError = sberauth.IsCertError

const certHint = sberauth.CertHint
