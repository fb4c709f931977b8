package gemini

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// wireError is Google's error object: {"code","message","status","details"}.
type wireError struct {
	Code    int          `json:"code"`
	Message string       `json:"message"`
	Status  string       `json:"status"`
	Details []wireDetail `json:"details"`
}

// wireDetail is one google.rpc detail; the adapter reads ErrorInfo's reason,
// RetryInfo's delay and QuotaFailure's violations.
type wireDetail struct {
	Type       string `json:"@type"`
	Reason     string `json:"reason"`
	RetryDelay string `json:"retryDelay"`
	Violations []struct {
		QuotaMetric string `json:"quotaMetric"`
		QuotaID     string `json:"quotaId"`
	} `json:"violations"`
}

// parseErrorBody reads {"error":{…}}, or the same inside a one-element array
// (the non-SSE streaming endpoint's shape).
func parseErrorBody(body []byte) (*wireError, bool) {
	var top struct {
		Error *wireError `json:"error"`
	}
	if json.Unmarshal(body, &top) == nil && top.Error != nil {
		return top.Error, true
	}
	var arr []struct {
		Error *wireError `json:"error"`
	}
	if json.Unmarshal(body, &arr) == nil && len(arr) > 0 && arr[0].Error != nil {
		return arr[0].Error, true
	}
	return nil, false
}

// credentialReasons are ErrorInfo reasons that say the API key is at fault
// (Gemini answers a bad key with 400 INVALID_ARGUMENT, not 401).
var credentialReasons = map[string]bool{
	"API_KEY_INVALID":               true,
	"API_KEY_EXPIRED":               true,
	"API_KEY_SERVICE_BLOCKED":       true,
	"API_KEY_HTTP_REFERRER_BLOCKED": true,
	"API_KEY_IP_ADDRESS_BLOCKED":    true,
	"SERVICE_DISABLED":              true,
	"CONSUMER_INVALID":              true,
	"ACCESS_TOKEN_EXPIRED":          true,
	"ACCESS_TOKEN_TYPE_UNSUPPORTED": true,
}

func (we *wireError) reason() string {
	for _, d := range we.Details {
		if d.Reason != "" {
			return d.Reason
		}
	}
	return ""
}

// credentialsRefused: the upstream refused our key rather than the request.
func (we *wireError) credentialsRefused() bool {
	if credentialReasons[we.reason()] {
		return true
	}
	m := strings.ToLower(we.Message)
	return strings.Contains(m, "api key not valid") || strings.Contains(m, "api key expired") ||
		strings.Contains(m, "api_key_invalid")
}

// unservable: the upstream will not serve the gateway at all (its location,
// or its billing), whatever the request.
func (we *wireError) unservable() bool {
	m := strings.ToLower(we.Message)
	for _, w := range []string{"location", "country", "region", "billing", "free tier"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// quotaExhausted tells a spent quota (per day, or of the plan) from a
// passing rate limit: Google words both "quota", but only the spent one comes
// without a delay to retry after. The caller checks the delay.
func (we *wireError) quotaExhausted() bool {
	m := strings.ToLower(we.Message)
	if strings.Contains(m, "exceeded your current quota") || strings.Contains(m, "quota exceeded") ||
		strings.Contains(m, "billing") {
		return true
	}
	for _, d := range we.Details {
		for _, v := range d.Violations {
			if strings.Contains(strings.ToLower(v.QuotaID), "perday") {
				return true
			}
		}
	}
	return false
}

// retryDelay is RetryInfo's delay ("26s", "1.5s"), or "Please retry in 26.5s." in the message.
func (we *wireError) retryDelay() time.Duration {
	for _, d := range we.Details {
		if d.RetryDelay != "" {
			if v, err := time.ParseDuration(d.RetryDelay); err == nil && v > 0 {
				return v
			}
		}
	}
	m := we.Message
	if i := strings.Index(strings.ToLower(m), "retry in "); i >= 0 {
		rest := m[i+len("retry in "):]
		end := 0
		for end < len(rest) && (rest[end] == '.' || (rest[end] >= '0' && rest[end] <= '9') || strings.IndexByte("hmsµun", rest[end]) >= 0) {
			end++
		}
		if v, err := time.ParseDuration(strings.TrimRight(rest[:end], ".")); err == nil && v > 0 {
			return v
		}
	}
	return 0
}

// safeWord keeps an upstream enum name (a status, a block reason) only if it is a plain identifier.
func safeWord(c string) string {
	if c == "" || !upstream.IsIdentifier(c) {
		return "an unnamed reason"
	}
	return c
}

// streamError maps an error object that came inside a 200 reply or stream.
func (we *wireError) streamError() *shlyuz.Error {
	status := we.Code
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	e := we.mapError("", status, 0)
	if e.Cause == nil {
		e.Cause = fmt.Errorf("upstream error object: code %d %s: %s", we.Code, we.Status, upstream.Clip(we.Message))
	}
	return e
}

// statusError maps a non-2xx upstream reply to the error the client sees.
func statusError(name, model string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
	we, parsed := parseErrorBody(body)
	if !parsed {
		we = &wireError{Code: status}
		if status == http.StatusNotFound {
			// A bare 404 (an HTML page) is a wrong base URL, not a missing model.
			e := shlyuz.ErrUpstream("The upstream has no Gemini API at the configured address (HTTP 404).")
			e.Cause = fmt.Errorf("upstream %s: HTTP 404 without an error body", name)
			return e
		}
	}
	e := we.mapError(model, status, upstream.RetryAfter(h, now))
	if e.Cause == nil {
		e.Cause = fmt.Errorf("upstream %s: HTTP %d %s: %s", name, status, we.Status, upstream.Clip(we.Message))
	}
	return e
}

// mapError maps Google's error to ours. retryAfter is the HTTP Retry-After, if any.
func (we *wireError) mapError(model string, status int, retryAfter time.Duration) *shlyuz.Error {
	msg := upstream.Clip(we.Message)
	if msg == "" {
		msg = http.StatusText(status)
	}
	gs := we.Status
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		gs == "UNAUTHENTICATED" || gs == "PERMISSION_DENIED" || we.credentialsRefused():
		// Never echo the message: it may quote the key or name our project.
		what := strconv.Itoa(status)
		if gs != "" {
			what += ", " + safeWord(gs)
		}
		if r := we.reason(); r != "" {
			what += ", " + safeWord(r)
		}
		if we.unservable() {
			return shlyuz.ErrUpstream("The upstream refuses to serve the gateway from its location or account (HTTP %s).", what)
		}
		e := shlyuz.ErrUpstream("The upstream refused the gateway's credentials (HTTP %s).", what)
		e.Cause = fmt.Errorf("upstream: HTTP %d %s reason=%q (message withheld)", status, gs, we.reason())
		return e
	case status == http.StatusTooManyRequests || gs == "RESOURCE_EXHAUSTED":
		delay := retryAfter
		if delay == 0 {
			delay = we.retryDelay()
		}
		if delay == 0 && we.quotaExhausted() {
			return shlyuz.ErrUpstream("The upstream's quota is exhausted; retrying this upstream will not help until its quota resets or its operator raises it: %s", msg)
		}
		e := shlyuz.ErrRateLimited(delay, "The upstream is rate limiting requests: %s", msg)
		e.UpstreamFault = true
		return e
	case status == http.StatusGatewayTimeout || status == http.StatusRequestTimeout || gs == "DEADLINE_EXCEEDED":
		return shlyuz.ErrUpstreamTimeout("The upstream did not finish in time (HTTP %d): %s", status, msg)
	case status == http.StatusNotFound || gs == "NOT_FOUND":
		// The upstream lacks the model (or a file): the next upstream may have it.
		if model != "" {
			return shlyuz.ErrUpstream("The upstream does not serve the model %q (HTTP 404): %s", model, msg).ForModel()
		}
		return shlyuz.ErrUpstream("The upstream answered not found (HTTP 404): %s", msg).ForModel()
	case gs == "FAILED_PRECONDITION" && we.unservable():
		return shlyuz.ErrUpstream("The upstream refuses to serve the gateway from its location or account: %s", msg)
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge ||
		status == http.StatusUnprocessableEntity || gs == "INVALID_ARGUMENT" || gs == "FAILED_PRECONDITION" || gs == "OUT_OF_RANGE":
		e := shlyuz.ErrInvalidValue("", "The upstream rejected the request: %s", msg)
		e.Param = nil
		return e
	case status >= 500:
		label := strconv.Itoa(status)
		if gs != "" {
			label += " " + safeWord(gs)
		}
		e := shlyuz.ErrUpstream("The upstream failed (HTTP %s): %s", label, msg)
		e.ModelFault = status != http.StatusServiceUnavailable // not a whole-upstream overload
		return e
	}
	return shlyuz.ErrUpstream("The upstream answered HTTP %d: %s", status, msg)
}
