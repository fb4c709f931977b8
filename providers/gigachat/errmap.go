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
var errs = service.Errors()

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
	return service.StatusError(name, status, h, msg, parsed, now)
}

// service names the API in messages and causes.
var service = sberauth.Service{Name: "GigaChat", Label: "gigachat"}

// isCertError reports whether err is a failed verification of the server's certificate.
var isCertError = sberauth.IsCertError

const certHint = sberauth.CertHint
