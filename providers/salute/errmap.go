package salute

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

// ErrClosed is what a Read blocked on the upstream returns once Close ended
// the speech. It wraps context.Canceled.
var ErrClosed = errs.Closed

// parseError reads SaluteSpeech's error body, {"status":N,"message":"…"}
// (also {"code":N,"message"} and {"error":"…"}); ok when it is one.
func parseError(body []byte) (status int, msg string, ok bool) {
	var eb struct {
		Status  json.RawMessage `json:"status"`
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &eb) != nil {
		return 0, "", false
	}
	switch {
	case len(eb.Message) > 0:
		msg = upstream.JSONText(eb.Message)
	case len(eb.Error) > 0:
		msg = upstream.JSONText(eb.Error)
	default:
		return 0, "", false
	}
	status, _ = strconv.Atoi(upstream.JSONText(eb.Status))
	if status == 0 {
		status, _ = strconv.Atoi(upstream.JSONText(eb.Code))
	}
	return status, msg, true
}

// bodyError is the error a JSON body in place of the audio says, or nil.
func bodyError(body []byte) *shlyuz.Error {
	status, msg, ok := parseError(body)
	if !ok {
		return nil
	}
	if msg = upstream.Clip(msg); msg == "" {
		msg = "no message"
	}
	e := shlyuz.ErrUpstream("SaluteSpeech reported an error (status %d): %s", status, msg)
	e.Cause = fmt.Errorf("salute: error body: status=%d: %s", status, msg)
	return e
}

// statusError maps a non-2xx reply of the REST API, as GigaChat's are mapped.
func statusError(name string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
	_, msg, parsed := parseError(body)
	return service.StatusError(name, status, h, msg, parsed, now)
}

// service names the API in messages and causes.
var service = sberauth.Service{Name: "SaluteSpeech", Label: "salute"}
