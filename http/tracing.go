package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// When tracing is on (Options.Tracing), every /api request is a server span,
// the parent of the gateway's spans for its call (actors/tracing.go). A
// client's W3C traceparent makes it a child of the client's trace. The span
// holds the method, the route's pattern and the status: never a header, a
// key or a body. Off, this middleware is not installed at all.

var httpTracer = otel.Tracer("github.com/shlyuz/shlyuz/http")

// headerCarrier reads a request's headers for the propagator.
type headerCarrier struct{ h *fasthttp.RequestHeader }

func (c headerCarrier) Get(key string) string { return string(c.h.Peek(key)) }
func (c headerCarrier) Set(key, value string) { c.h.Set(key, value) }
func (c headerCarrier) Keys() []string {
	var keys []string
	c.h.VisitAll(func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}

// traceRequest starts the request's span, hands its context to the handler
// (c.UserContext, which the gateway's calls take) and ends it with the status.
func (s *Server) traceRequest(c *fiber.Ctx) error {
	ctx := otel.GetTextMapPropagator().Extract(c.UserContext(), headerCarrier{&c.Request().Header})
	method := strings.Clone(c.Method()) // the span outlives the request's buffers
	ctx, span := httpTracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer))
	c.SetUserContext(ctx)
	err := c.Next()
	status := c.Response().StatusCode()
	if err != nil {
		status = statusOf(err)
	}
	route := strings.Clone(c.Route().Path)
	span.SetName(method + " " + route)
	span.SetAttributes(attribute.String("http.request.method", method), attribute.String("http.route", route),
		attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, "")
	}
	span.End()
	return err
}
