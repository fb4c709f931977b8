package api

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// anthropicRoute reports whether path is one of Anthropic's Messages routes
// (as Fiber routes it: any case, a trailing slash or not), whose clients read
// Anthropic's error shape.
func anthropicRoute(path string) bool {
	p := strings.ToLower(strings.TrimSuffix(path, "/"))
	return p == "/api/v1/messages" || p == "/api/v1/messages/count_tokens"
}

// anthropicPath is anthropicRoute of a path in bytes, without making it a
// string.
func anthropicPath(p []byte) bool {
	for _, c := range p {
		if c >= utf8.RuneSelf { // strings.ToLower's Unicode: anthropicRoute decides
			return anthropicRoute(string(p))
		}
	}
	p = bytes.TrimSuffix(p, []byte("/"))
	return bytes.EqualFold(p, []byte("/api/v1/messages")) || bytes.EqualFold(p, []byte("/api/v1/messages/count_tokens"))
}

// asciiSpace reports whether c is a space as bytes.Fields finds them in ASCII.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// ErrorJSON is e's error body in the shape path's clients read.
func ErrorJSON(path string, e *shlyuz.Error) []byte {
	var body []byte
	if anthropicRoute(path) {
		body, _ = json.Marshal(newAnthropicError(e))
	} else {
		body, _ = json.Marshal(errorBody{Error: e})
	}
	return body
}

// RetryAfter is e's Retry-After in whole seconds, rounded up; "" for none.
func RetryAfter(e *shlyuz.Error) string {
	if e.RetryAfter <= 0 {
		return ""
	}
	return strconv.FormatInt(int64((e.RetryAfter+time.Second-1)/time.Second), 10)
}

// The requests for a Messages route whose headers fasthttp read and whose
// body it is still reading are kept in Server.ReadingAnthropic, by their
// header (one per connection, reused by its next request): fasthttp resets a
// request it could not read (a small body that never finished, a broken
// chunk) before its error handler runs, so the handler learns the route's
// shape there. An entry goes when the request reaches the handler or its
// refusal is written; one whose client left without either stays until the
// connection's context serves its next request.

// refusedAnthropic reports whether a refusal written by fasthttp's error
// handler is for a Messages route whose request fasthttp failed to read:
// one whose headers it read, or one whose line the connection saw (headers
// too large or malformed to read), first on its connection or kept alive.
func (s *Server) refusedAnthropic(c *fiber.Ctx) bool {
	if _, ok := s.ReadingAnthropic.LoadAndDelete(&c.Context().Request.Header); ok {
		return true
	}
	cc, ok := c.Context().Conn().(*CappedConn)
	return ok && cc.read && cc.anthropic && !cc.Served
}
