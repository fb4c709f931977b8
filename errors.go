package shlyuz

import (
	"errors"
	"fmt"
	"time"
)

// Error is every failure a client can see. Its JSON is OpenAI's error body:
// {"error":{"message","type","code","param"}}. Status is the HTTP status.
type Error struct {
	Status     int           `json:"-"`
	Type       string        `json:"type"`
	Code       string        `json:"code"`
	Message    string        `json:"message"`
	Param      *string       `json:"param"`
	RetryAfter time.Duration `json:"-"` // sent as Retry-After when set
	// UpstreamFault marks failures that count against an upstream's breaker
	// and allow a fallback to the next upstream.
	UpstreamFault bool `json:"-"`
	// ModelFault narrows an upstream fault to the model asked for: the
	// upstream answered (a 404 for the model, a 5xx for it), so its breaker
	// for that model counts it, not its breaker for every model.
	ModelFault bool `json:"-"`
	// Transient marks an upstream's answer that a later try of the same
	// call may well not get (a rate limit, a 5xx, a time-out): the gateway
	// retries it within a time budget (RetryConfig).
	Transient bool `json:"-"`
	// RateLimit is a key's rate limit state, sent as X-RateLimit-* headers.
	RateLimit *RateState `json:"-"`
	Cause     error      `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap exposes the cause.
func (e *Error) Unwrap() error { return e.Cause }

// ForModel marks an upstream fault as the model's alone (see ModelFault).
func (e *Error) ForModel() *Error { e.ModelFault = true; return e }

// FromStatus marks the error the upstream's HTTP status was mapped to as
// Transient when the status is a rate limit (429 but for an exhausted
// quota, which waiting does not cure), a time-out (408) or a server's
// failure (5xx). It returns e.
func (e *Error) FromStatus(status int) *Error {
	if e != nil && (status == 408 || status >= 500 || (status == 429 && e.Status == 429)) {
		e.Transient = true
	}
	return e
}

// WithParam names the request field at fault.
func (e *Error) WithParam(p string) *Error { e.Param = &p; return e }

// AsError turns any error into an *Error, mapping unknown ones to a 502.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return ErrUpstream("%s", err.Error())
}

func newErr(status int, typ, code, format string, args ...any) *Error {
	return &Error{Status: status, Type: typ, Code: code, Message: fmt.Sprintf(format, args...)}
}

// The error types of the public contract.
const (
	TypeInvalidRequest = "invalid_request_error"
	TypeAuthentication = "authentication_error"
	TypeInsufficient   = "insufficient_credits"
	TypePermission     = "permission_error"
	TypeNotFound       = "not_found_error"
	TypeConflict       = "conflict_error"
	TypeRateLimit      = "rate_limit_error"
	TypeUpstream       = "upstream_error"
	TypeUnavailable    = "service_unavailable"
	TypeServer         = "server_error"
)

// ErrInvalidJSON is a body that does not parse.
func ErrInvalidJSON(detail string) *Error {
	return newErr(400, TypeInvalidRequest, "invalid_json", "The request body is not valid JSON: %s", detail)
}

// ErrMissingField is a required field left out.
func ErrMissingField(field string) *Error {
	return newErr(400, TypeInvalidRequest, "missing_field", "The field %q is required.", field).WithParam(field)
}

// ErrInvalidValue is a field with a value out of its range.
func ErrInvalidValue(field, format string, args ...any) *Error {
	return newErr(400, TypeInvalidRequest, "invalid_value", format, args...).WithParam(field)
}

// ErrContentPolicy is a prompt or a result the upstream's safety system
// refused: the client's to change, never charged.
func ErrContentPolicy(format string, args ...any) *Error {
	return newErr(400, TypeInvalidRequest, "content_policy", format, args...).WithParam("prompt")
}

// ErrUnsupportedFormat is a media format the model or its upstream cannot
// read or write; the message names the accepted formats.
func ErrUnsupportedFormat(field, format string, args ...any) *Error {
	return newErr(400, TypeInvalidRequest, "unsupported_format", format, args...).WithParam(field)
}

// ErrInvalidBase64 is a field that should hold base64 and does not.
func ErrInvalidBase64(field string) *Error {
	return newErr(400, TypeInvalidRequest, "invalid_base64", "The field %q is not valid base64.", field).WithParam(field)
}

// ErrMediaTooLarge is media (a field's decoded bytes) over a model's size limit.
func ErrMediaTooLarge(field string, size, limit int64) *Error {
	return newErr(413, TypeInvalidRequest, "request_too_large", "The %s is %d bytes; the model takes at most %d.", field, size, limit).WithParam(field)
}

// ErrTooLong is media over a model's duration limit.
func ErrTooLong(field string, seconds, limit int64) *Error {
	return newErr(400, TypeInvalidRequest, "invalid_value", "The audio lasts %d s; the model takes at most %d s.", seconds, limit).WithParam(field)
}

// ErrStreamNotSupported is stream: true on an endpoint that answers whole.
func ErrStreamNotSupported(what string) *Error {
	return newErr(400, TypeInvalidRequest, "stream_not_supported", "%s is not streamed; leave stream out or set it to false.", what).WithParam("stream")
}

// ErrTooLarge is a body over the limit.
func ErrTooLarge(limit int) *Error {
	return newErr(413, TypeInvalidRequest, "request_too_large", "The request body is larger than %d bytes.", limit)
}

// ErrMissingKey is a request without a bearer key.
func ErrMissingKey() *Error {
	return newErr(401, TypeAuthentication, "missing_api_key", "No API key: send Authorization: Bearer sk-shz-v1-...")
}

// ErrInvalidKey is a key we do not know.
func ErrInvalidKey() *Error {
	return newErr(401, TypeAuthentication, "invalid_api_key", "The API key is not valid. Check it, or create a new one in your account.")
}

// ErrKeyRevoked is a key its owner revoked.
func ErrKeyRevoked() *Error {
	return newErr(401, TypeAuthentication, "key_revoked", "The API key was revoked. Create a new one in your account.")
}

// ErrBeyondMaker is a key a managing key asks to make (or change) with more
// than it has itself: the field names what.
func ErrBeyondMaker(field, format string, args ...any) *Error {
	return newErr(403, TypePermission, "exceeds_managing_key", format, args...).WithParam(field)
}

// ErrTooManyKeys is a key past its account's cap.
func ErrTooManyKeys(max int) *Error {
	return newErr(403, TypePermission, "too_many_keys",
		"This account already has %d keys, the most it may have. Delete a key you no longer use to make another.", max)
}

// ErrKeyDisabled is a key its account disabled (it may enable it again).
func ErrKeyDisabled() *Error {
	return newErr(401, TypeAuthentication, "key_disabled", "The API key is disabled. Enable it again or use another key.")
}

// ErrManagementKey is a management key used to call a model: it only manages keys.
func ErrManagementKey() *Error {
	return newErr(403, TypePermission, "management_key", "A management key manages API keys (/api/v1/keys) and cannot call models. Use an API key.")
}

// ErrNotManagementKey is an API key used where only a management key may act.
func ErrNotManagementKey() *Error {
	return newErr(403, TypePermission, "management_key_required", "Only a management key may manage API keys. Create one in your account.")
}

// ErrKeyExpired is a key past its expiry.
func ErrKeyExpired() *Error {
	return newErr(401, TypeAuthentication, "key_expired", "The API key has expired. Create a new one in your account.")
}

// ErrInsufficientCredits is a request the account's balance cannot reserve.
// askedMax says whether the client set max_tokens (only then is lowering it advice).
func ErrInsufficientCredits(available Credits, affordableTokens int64, wanted int64, askedMax bool) *Error {
	advice := "Top up."
	if askedMax {
		advice = "Top up, or lower max_tokens."
	}
	if affordableTokens < 1 {
		return newErr(402, TypeInsufficient, "insufficient_credits",
			"Insufficient credits: the balance is %d credits (%s), which affords no completion token for this prompt. %s",
			available, RublesSign(available), advice)
	}
	return newErr(402, TypeInsufficient, "insufficient_credits",
		"Insufficient credits: the balance is %d credits (%s), which affords %d completion tokens for this prompt, but the request may use up to %d. %s",
		available, RublesSign(available), affordableTokens, wanted, advice)
}

// ErrKeyLimitExceeded is a request the key's ceiling cannot reserve.
func ErrKeyLimitExceeded(limit, spent Credits, resetsAt time.Time, affordableTokens, wanted int64) *Error {
	reset := "never resets"
	if !resetsAt.IsZero() {
		reset = "resets at " + resetsAt.Format(time.RFC3339)
	}
	return newErr(403, TypePermission, "key_limit_exceeded",
		"Key limit exceeded: the ceiling is %d credits (%s), %d (%s) are spent or reserved this period (%s); that affords %d completion tokens for this prompt, but the request may use up to %d.",
		limit, RublesSign(limit), spent, RublesSign(spent), reset, affordableTokens, wanted)
}

// ErrInsufficientCreditsFor is a media request (priced in images, seconds or
// characters) whose worst case the balance cannot reserve.
func ErrInsufficientCreditsFor(available, wanted Credits) *Error {
	return newErr(402, TypeInsufficient, "insufficient_credits",
		"Insufficient credits: the balance has %d credits (%s) free, but the request may cost up to %d (%s). Top up, or ask for less.",
		available, RublesSign(available), wanted, RublesSign(wanted))
}

// ErrKeyLimitExceededCredits is a media request whose worst case the key's ceiling cannot reserve.
func ErrKeyLimitExceededCredits(limit, spent Credits, resetsAt time.Time, wanted Credits) *Error {
	reset := "never resets"
	if !resetsAt.IsZero() {
		reset = "resets at " + resetsAt.Format(time.RFC3339)
	}
	return newErr(403, TypePermission, "key_limit_exceeded",
		"Key limit exceeded: the ceiling is %d credits (%s), %d (%s) are spent or reserved this period (%s), but the request may cost up to %d (%s).",
		limit, RublesSign(limit), spent, RublesSign(spent), reset, wanted, RublesSign(wanted))
}

// ErrModelNotFound is an unknown model id.
func ErrModelNotFound(model string) *Error {
	return newErr(404, TypeNotFound, "model_not_found", "The model %q does not exist. GET /api/v1/models lists the models.", model).WithParam("model")
}

// ErrModelNotAllowed is a model outside the key's allowed_models.
func ErrModelNotAllowed(model string) *Error {
	return newErr(403, TypePermission, "model_not_allowed",
		"This API key may not call the model %q: it is not in the key's allowed_models.", model).WithParam("model")
}

// ErrModelUnavailable is a catalog model this gateway has no upstream for:
// a 404, which clients do not retry (a 503 would make them retry in vain).
func ErrModelUnavailable(model string) *Error {
	return newErr(404, TypeNotFound, "model_not_available",
		"The model %q is in the catalog, but no upstream of this gateway serves it. GET /api/v1/models lists the models it serves.", model).WithParam("model")
}

// ErrNotFoundCode is a 404 with its own code and message.
func ErrNotFoundCode(code, format string, args ...any) *Error {
	return newErr(404, TypeNotFound, code, format, args...)
}

// ErrNotFound is an unknown route or object.
func ErrNotFound(what string) *Error {
	return newErr(404, TypeNotFound, "not_found", "%s not found.", what)
}

// ErrConflict is an idempotency key reused with other content.
func ErrConflict(code, format string, args ...any) *Error {
	return newErr(409, TypeConflict, code, format, args...)
}

// ErrRateLimited is a 429, ours or an upstream's.
func ErrRateLimited(retryAfter time.Duration, format string, args ...any) *Error {
	e := newErr(429, TypeRateLimit, "rate_limited", format, args...)
	e.RetryAfter = retryAfter
	return e
}

// ErrUpstream is an upstream that failed or answered nonsense.
func ErrUpstream(format string, args ...any) *Error {
	e := newErr(502, TypeUpstream, "upstream_error", format, args...)
	e.UpstreamFault = true
	return e
}

// ErrUpstreamTimeout is an upstream that did not answer in time.
func ErrUpstreamTimeout(format string, args ...any) *Error {
	e := newErr(504, TypeUpstream, "upstream_timeout", format, args...)
	e.UpstreamFault, e.Transient = true, true
	return e
}

// ErrProviderUnavailable is an upstream whose breaker is open.
func ErrProviderUnavailable(retryAfter time.Duration, format string, args ...any) *Error {
	e := newErr(503, TypeUnavailable, "provider_unavailable", format, args...)
	e.RetryAfter = retryAfter
	e.UpstreamFault = true
	return e
}

// ErrOverloaded is an upstream whose concurrency cap is full.
func ErrOverloaded(retryAfter time.Duration, format string, args ...any) *Error {
	e := newErr(503, TypeUnavailable, "overloaded", format, args...)
	e.RetryAfter = retryAfter
	e.UpstreamFault = true
	return e
}

// ErrInternal is our own failure; its message never carries details.
func ErrInternal(cause error) *Error {
	e := newErr(500, TypeServer, "internal_error", "Something went wrong on our side; nothing was charged. Try again.")
	e.Cause = cause
	return e
}

// ErrUnauthorizedAdmin is a request to the operator API without the admin token.
func ErrUnauthorizedAdmin() *Error {
	return newErr(401, TypeAuthentication, "invalid_admin_token", "The operator API needs Authorization: Bearer $SHLYUZ_ADMIN_TOKEN.")
}
