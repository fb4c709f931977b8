package api

import (
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

type errorBody struct {
	Error *shlyuz.Error `json:"error"`
}

// writeError sends the one error body with the error's status and
// Retry-After, in Anthropic's shape on the Messages routes (refusals.go).
func writeError(c *fiber.Ctx, e *shlyuz.Error) error {
	if geminiRoute(c.Path()) {
		return writeGeminiError(c, e)
	}
	if anthropicRoute(c.Path()) {
		e = forAnthropic(e)
		setErrorHeaders(c, e)
		return c.Status(e.Status).JSON(newAnthropicError(e))
	}
	setErrorHeaders(c, e)
	c.Status(e.Status)
	return c.JSON(errorBody{Error: e})
}

// setErrorHeaders sets Retry-After and the rate-limit headers an error carries.
func setErrorHeaders(c *fiber.Ctx, e *shlyuz.Error) {
	if ra := RetryAfter(e); ra != "" {
		c.Set(fiber.HeaderRetryAfter, ra)
	}
	if rl := e.RateLimit; rl != nil { // OpenRouter's headers; the reset in unix milliseconds
		c.Set("X-RateLimit-Limit", strconv.FormatInt(rl.Limit, 10))
		c.Set("X-RateLimit-Remaining", strconv.FormatInt(rl.Remaining, 10))
		c.Set("X-RateLimit-Reset", strconv.FormatInt(rl.Reset.UnixMilli(), 10))
	}
}

// ErrorHandler maps everything a handler returns, and Fiber's own failures
// (unknown route, body too large, bad method), to the one error body.
func (s *Server) ErrorHandler(c *fiber.Ctx, err error) error {
	e := s.asError(c, err)
	if s.refusedAnthropic(c) { // fasthttp's refusal of a Messages request it reset
		e = forAnthropic(e)
		setErrorHeaders(c, e)
		return c.Status(e.Status).JSON(newAnthropicError(e))
	}
	return writeError(c, e)
}

// asError is the error a handler's failure is answered with.
func (s *Server) asError(c *fiber.Ctx, err error) *shlyuz.Error {
	var e *shlyuz.Error
	if errors.As(err, &e) {
		if e.Status >= 500 && e.Cause != nil {
			s.Log.Error("request failed", "path", c.Path(), "code", e.Code, "err", e.Cause)
		}
		return e
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusNotFound:
			return shlyuz.ErrNotFound("The route " + c.Method() + " " + c.Path())
		case fiber.StatusRequestEntityTooLarge:
			return shlyuz.ErrTooLarge(s.Opts.BodyLimit)
		case fiber.StatusRequestTimeout: // fasthttp's: headers, or a body under 8 KiB, not in time
			return &shlyuz.Error{Status: 408, Type: shlyuz.TypeInvalidRequest, Code: "request_timeout",
				Message: "The request did not arrive in time; the connection is closed."}
		case fiber.StatusMethodNotAllowed:
			return &shlyuz.Error{Status: 405, Type: shlyuz.TypeInvalidRequest, Code: "method_not_allowed",
				Message: "The method " + c.Method() + " is not allowed on " + c.Path() + "."}
		}
		if fe.Code < 500 {
			return &shlyuz.Error{Status: fe.Code, Type: shlyuz.TypeInvalidRequest, Code: "invalid_request", Message: fe.Message}
		}
	}
	s.Log.Error("unexpected error", "path", c.Path(), "err", err)
	return shlyuz.ErrInternal(err)
}

// StatusOf is the status an error will be answered with.
func StatusOf(err error) int {
	var e *shlyuz.Error
	if errors.As(err, &e) {
		return e.Status
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return 500
}
