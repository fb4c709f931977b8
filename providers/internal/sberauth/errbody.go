package sberauth

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// ParseError reads a Sber API's error body: {"status":N,"message":"…"},
// also {"code":N,"message"} (OAuth) and {"error":{"message"}} or
// {"error":"…"}; ok when it is one.
func ParseError(body []byte) (status int, msg string, ok bool) {
	var eb struct {
		Status  json.RawMessage `json:"status"`
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
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
	if status, _ = strconv.Atoi(upstream.JSONText(eb.Status)); status == 0 {
		status, _ = strconv.Atoi(upstream.JSONText(eb.Code))
	}
	return status, msg, true
}

// BodyError is the error a JSON body in place of a reply (or a chunk of
// one) says, or nil when it is none; its message, as every adapter's,
// names "the upstream".
func (s Service) BodyError(body []byte) *shlyuz.Error {
	status, msg, ok := ParseError(body)
	if !ok {
		return nil
	}
	if msg = upstream.Clip(msg); msg == "" {
		msg = "no message"
	}
	var e *shlyuz.Error
	if status > 0 {
		e = shlyuz.ErrUpstream("The upstream reported an error (status %d): %s", status, msg)
	} else {
		e = shlyuz.ErrUpstream("The upstream reported an error: %s", msg)
	}
	e.Cause = fmt.Errorf("%s: error body: status=%d: %s", s.Label, status, msg)
	return e
}
