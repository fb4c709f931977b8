package http

import (
	"bufio"
	"encoding/json"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// anthropicErrorBody is Anthropic's error shape:
// {"type":"error","error":{"type":…,"message":…}}. Our own code rides along
// in "code" for a client that wants it; Anthropic's SDKs ignore it.
type anthropicErrorBody struct {
	Type  string              `json:"type"`
	Error anthropicErrorInner `json:"error"`
}

type anthropicErrorInner struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// anthropicErrorType is Anthropic's error type for a status.
func anthropicErrorType(status int) string {
	switch status {
	case 400, 405, 422:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404, 410: // 410: a retired model, which Anthropic answers as not found
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 503, 529:
		return "overloaded_error"
	case 504:
		return "timeout_error"
	}
	if status < 500 {
		return "invalid_request_error"
	}
	return "api_error"
}

// forAnthropic is e as a Messages client is told it: a key's spending
// ceiling is a billing refusal there (402 billing_error, "out of credits or
// spend limit reached" in Anthropic's words), not a permission one, which
// Claude Code shows as a failed login.
func forAnthropic(e *shlyuz.Error) *shlyuz.Error {
	if e.Code == "key_limit_exceeded" && e.Status == 403 {
		c := *e
		c.Status = 402
		return &c
	}
	return e
}

func newAnthropicError(e *shlyuz.Error) anthropicErrorBody {
	return anthropicErrorBody{Type: "error", Error: anthropicErrorInner{
		Type: anthropicErrorType(e.Status), Message: e.Message, Code: e.Code}}
}

// anthropicErrors answers every failure of the routes after it in
// Anthropic's error shape, with the status and headers of the one error body.
func (s *Server) anthropicErrors(c *fiber.Ctx) error {
	err := c.Next()
	if err == nil {
		return nil
	}
	e := forAnthropic(s.asError(c, err))
	setErrorHeaders(c, e)
	return c.Status(e.Status).JSON(newAnthropicError(e))
}

// writeAnthropicErrorEvent is a stream's failure as Anthropic's error event.
func writeAnthropicErrorEvent(w *bufio.Writer, e *shlyuz.Error) {
	b, _ := json.Marshal(newAnthropicError(forAnthropic(e)))
	writeNamedEvent(w, "error", b)
}

// writeNamedEvent writes one SSE event with a name.
func writeNamedEvent(w *bufio.Writer, name string, data []byte) {
	_, _ = w.WriteString("event: ")
	_, _ = w.WriteString(name)
	_, _ = w.WriteString("\ndata: ")
	_, _ = w.Write(data)
	_, _ = w.WriteString("\n\n")
}

// anthropicKey takes the key from x-api-key (Anthropic's header) or from
// Authorization: Bearer, checks its shape and leaves the full check to the
// reservation, as keyHashOnly does.
func anthropicKey(c *fiber.Ctx) error {
	if key := c.Get("X-Api-Key"); key != "" {
		if !shlyuz.LooksLikeKey(key) {
			return shlyuz.ErrInvalidKey()
		}
		c.Locals(localKeyHash, shlyuz.HashKey(key))
		return c.Next()
	}
	return keyHashOnly(c)
}
