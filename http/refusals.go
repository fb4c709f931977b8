package http

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/valyala/fasthttp"
)

// Refusals made before a route runs (fasthttp's parse errors, a method Fiber
// does not know, the body reader's, the connection cap's) answer the same
// JSON error body as everything else, in the shape the route's clients
// read: Anthropic's on the Messages routes, OpenAI's everywhere else.

// anthropicRoute reports whether path is one of Anthropic's Messages routes
// (as Fiber routes it: any case, a trailing slash or not), whose clients read
// Anthropic's error shape.
func anthropicRoute(path string) bool {
	p := strings.ToLower(strings.TrimSuffix(path, "/"))
	return p == "/api/v1/messages" || p == "/api/v1/messages/count_tokens"
}

// errorJSON is e's error body in the shape path's clients read.
func errorJSON(path string, e *shlyuz.Error) []byte {
	var body []byte
	if anthropicRoute(path) {
		body, _ = json.Marshal(newAnthropicError(e))
	} else {
		body, _ = json.Marshal(errorBody{Error: e})
	}
	return body
}

// retryAfter is e's Retry-After in whole seconds, rounded up; "" for none.
func retryAfter(e *shlyuz.Error) string {
	if e.RetryAfter <= 0 {
		return ""
	}
	return strconv.FormatInt(int64((e.RetryAfter+time.Second-1)/time.Second), 10)
}

// guardMethods wraps the server's handler: a method Fiber does not know gets a
// JSON 405 instead of Fiber's plain-text "Invalid http method".
func (s *Server) guardMethods() {
	srv := s.App.Server()
	srv.SecureErrorLogMessage = true // a parse error does not echo the request's bytes
	inner := srv.Handler
	srv.Handler = func(ctx *fasthttp.RequestCtx) {
		s.readingAnthropic.Delete(&ctx.Request.Header) // read whole: fasthttp refuses it no more
		if cc, ok := ctx.Conn().(*cappedConn); ok {
			cc.served = true
			defer cc.next()
		}
		if !slices.Contains(fiber.DefaultMethods, string(ctx.Method())) {
			writeRaw(ctx, &shlyuz.Error{Status: 405, Type: shlyuz.TypeInvalidRequest, Code: "method_not_allowed",
				Message: "The method is not an HTTP method the gateway serves."})
			ctx.SetConnectionClose()
			return
		}
		inner(ctx)
	}
}

// The requests for a Messages route whose headers fasthttp read and whose
// body it is still reading are kept in Server.readingAnthropic, by their
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
	if _, ok := s.readingAnthropic.LoadAndDelete(&c.Context().Request.Header); ok {
		return true
	}
	cc, ok := c.Context().Conn().(*cappedConn)
	return ok && cc.read && cc.anthropic && !cc.served
}

// writeRaw answers the error body outside Fiber.
func writeRaw(ctx *fasthttp.RequestCtx, e *shlyuz.Error) {
	body := errorJSON(string(ctx.Path()), e)
	if ra := retryAfter(e); ra != "" {
		ctx.Response.Header.Set(fiber.HeaderRetryAfter, ra)
	}
	ctx.SetStatusCode(e.Status)
	ctx.SetContentType(fiber.MIMEApplicationJSON)
	ctx.SetBody(body)
}
