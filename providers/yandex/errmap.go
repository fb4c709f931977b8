package yandex

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// errs are the adapter's reasons for giving up a call.
var errs = upstream.NewErrors("yandex")

// ErrStreamClosed is what a Next blocked on the upstream returns when Close
// ends the stream. It wraps context.Canceled: closing is the caller's choice,
// never the upstream's fault.
var ErrStreamClosed = errs.Closed

// defaultRetryAfter is the wait suggested after a 429 that names none: the
// native API sends no Retry-After of its own (its per-second quotas refill in
// about a second).
const defaultRetryAfter = time.Second

// wireError is Yandex's error body, grpc-gateway style:
// {"error":{"grpcCode":3,"httpCode":400,"message":"…","httpStatus":"Bad Request","details":[…]}}.
// grpc-gateway v2 and the operations API say "code" for the gRPC code.
type wireError struct {
	GRPCCode   int64  `json:"grpcCode"`
	Code       int64  `json:"code"`
	HTTPCode   int    `json:"httpCode"`
	Message    string `json:"message"`
	HTTPStatus string `json:"httpStatus"`
}

// parseErrorBody reads an error body, grpc-gateway's or SpeechKit v1's
// {"error_code":"BAD_REQUEST","error_message":"…"}; ok is false when it is
// neither.
func parseErrorBody(body []byte) (we wireError, ok bool) {
	var top struct {
		Error        json.RawMessage `json:"error"`
		ErrorCode    string          `json:"error_code"`
		ErrorMessage string          `json:"error_message"`
	}
	switch {
	case json.Unmarshal(body, &top) != nil:
		return wireError{}, false
	case len(top.Error) > 0 && string(top.Error) != "null":
		return parseErrorValue(top.Error), true
	case top.ErrorCode != "" || top.ErrorMessage != "":
		return wireError{Message: strings.TrimPrefix(top.ErrorCode+": "+top.ErrorMessage, ": ")}, true
	}
	return wireError{}, false
}

// parseErrorValue reads the value of an "error" member: an object, or a bare string.
func parseErrorValue(v []byte) wireError {
	var we wireError
	if json.Unmarshal(v, &we) != nil {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return wireError{Message: s}
		}
		return wireError{Message: string(v)}
	}
	if we.GRPCCode == 0 {
		we.GRPCCode = we.Code
	}
	return we
}

// grpcNames are the gRPC status names, safe to show.
var grpcNames = map[int64]string{
	1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND",
	6: "ALREADY_EXISTS", 7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION",
	10: "ABORTED", 11: "OUT_OF_RANGE", 12: "UNIMPLEMENTED", 13: "INTERNAL", 14: "UNAVAILABLE",
	15: "DATA_LOSS", 16: "UNAUTHENTICATED",
}

// grpcHTTP is the HTTP status grpc-gateway gives a gRPC code, for error
// objects inside a stream that carry no httpCode.
var grpcHTTP = map[int64]int{
	1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400,
	10: 409, 11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401,
}

// isQuota reports whether a refusal is a quota that will not refill soon (an
// hourly, daily or monthly one) or a billing problem, as opposed to a
// per-second rate limit. Yandex words both as "… rate quota limit exceed:
// allowed N requests", naming the quota: …RequestsPerSecond.rate is a rate
// limit, …TokensPerHour.rate is not.
func isQuota(msg string) bool {
	m := strings.ToLower(msg)
	for _, w := range []string{"perhour", "perday", "permonth", "billing", "balance", "payment"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// statusError maps a non-2xx reply (or an error object inside a 200 stream
// before any event) to the error the client sees.
func statusError(name string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
	we, parsed := parseErrorBody(body)
	return mapError(name, status, h, we, parsed, now)
}

func mapError(name string, status int, h http.Header, we wireError, parsed bool, now time.Time) *shlyuz.Error {
	msg := upstream.Clip(we.Message)
	if msg == "" {
		msg = http.StatusText(status)
	}
	grpc := grpcNames[we.GRPCCode]
	cause := fmt.Errorf("upstream %s: HTTP %d: grpc=%d: %s", name, status, we.GRPCCode, msg)
	var e *shlyuz.Error
	switch {
	case isQuota(we.Message) && (status == http.StatusTooManyRequests || status == http.StatusPaymentRequired ||
		status == http.StatusForbidden || status == http.StatusBadRequest):
		e = shlyuz.ErrUpstream("The upstream's quota is exhausted: %s; retrying this upstream will not help soon.", msg)
	case status == http.StatusPaymentRequired:
		e = shlyuz.ErrUpstream("The upstream's account cannot pay (HTTP 402); retrying this upstream will not help until its operator tops it up.")
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		// Never echo the message: it may quote (part of) our key or token.
		if grpc != "" {
			e = shlyuz.ErrUpstream("The upstream refused the gateway's credentials (HTTP %d, %s).", status, grpc)
		} else {
			e = shlyuz.ErrUpstream("The upstream refused the gateway's credentials (HTTP %d).", status)
		}
		cause = fmt.Errorf("upstream %s: HTTP %d: grpc=%d", name, status, we.GRPCCode)
	case status == http.StatusTooManyRequests:
		e = shlyuz.ErrRateLimited(retryAfter(h, now), "The upstream is rate limiting requests: %s", msg)
		e.UpstreamFault = true
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		e = shlyuz.ErrUpstreamTimeout("The upstream timed out (HTTP %d): %s", status, msg)
	case status == http.StatusNotFound && !parsed:
		e = shlyuz.ErrUpstream("The upstream has no completion endpoint at the configured address (HTTP 404).")
	case status == http.StatusNotFound:
		// The model URI comes from the operator's route, not from the client.
		e = shlyuz.ErrUpstream("The upstream does not serve the configured model (HTTP 404): %s", msg).ForModel()
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge ||
		status == http.StatusUnprocessableEntity:
		e = shlyuz.ErrInvalidValue("", "The upstream rejected the request: %s", msg)
		e.Param = nil
	case status >= 500:
		e = shlyuz.ErrUpstream("The upstream failed (HTTP %d): %s", status, msg)
		e.ModelFault = status != http.StatusServiceUnavailable // not a whole-upstream overload
	default:
		e = shlyuz.ErrUpstream("The upstream answered HTTP %d: %s", status, msg)
	}
	e.Cause = cause
	return e
}

// streamError maps an error object inside a 200 stream. Before the first
// event it is mapped like an HTTP error (the gateway may still fall back);
// after it, it is the upstream failing half way.
func streamError(name string, v []byte, started bool, now time.Time) *shlyuz.Error {
	we := parseErrorValue(v)
	if !started {
		status := we.HTTPCode
		if status < 400 || status > 599 {
			status = grpcHTTP[we.GRPCCode]
		}
		if status == 0 {
			status = http.StatusInternalServerError
		}
		return mapError(name, status, nil, we, true, now)
	}
	msg := upstream.Clip(we.Message)
	if msg == "" {
		msg = "no message"
	}
	if we.HTTPCode == http.StatusUnauthorized || we.HTTPCode == http.StatusForbidden {
		msg = "credentials refused"
	}
	e := shlyuz.ErrUpstream("The upstream reported an error: %s", msg)
	e.Cause = fmt.Errorf("upstream %s: stream error: grpc=%d http=%d: %s", name, we.GRPCCode, we.HTTPCode, msg)
	return e
}

// retryAfter reads Retry-After in seconds or as an HTTP date; a 429 without one
// gets defaultRetryAfter.
func retryAfter(h http.Header, now time.Time) time.Duration {
	return upstream.RetryAfterOr(h, now, defaultRetryAfter)
}
