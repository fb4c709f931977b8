package http

import (
	"slices"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/valyala/fasthttp"
)

// Refusals made before a route runs (fasthttp's parse errors, a method Fiber
// does not know, the body reader's, the connection cap's) answer the same
// JSON error body as everything else, in the shape the route's clients
// read: Anthropic's on the Messages routes, OpenAI's everywhere else.

// guardMethods wraps the server's handler: a method Fiber does not know gets a
// JSON 405 instead of Fiber's plain-text "Invalid http method".
func (s *Server) guardMethods() {
	srv := s.App.Server()
	srv.SecureErrorLogMessage = true // a parse error does not echo the request's bytes
	inner := srv.Handler
	srv.Handler = func(ctx *fasthttp.RequestCtx) {
		s.ReadingAnthropic.Delete(&ctx.Request.Header) // read whole: fasthttp refuses it no more
		if cc, ok := ctx.Conn().(*api.CappedConn); ok {
			cc.Served = true
			defer cc.Next()
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

// writeRaw answers the error body outside Fiber.
func writeRaw(ctx *fasthttp.RequestCtx, e *shlyuz.Error) {
	body := api.ErrorJSON(string(ctx.Path()), e)
	if ra := api.RetryAfter(e); ra != "" {
		ctx.Response.Header.Set(fiber.HeaderRetryAfter, ra)
	}
	ctx.SetStatusCode(e.Status)
	ctx.SetContentType(fiber.MIMEApplicationJSON)
	ctx.SetBody(body)
}
