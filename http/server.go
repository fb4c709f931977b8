package http

import (
	"log/slog"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/gofiber/fiber/v2/middleware/pprof"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/admin"
	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/http/gemini"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/http/media"
	"github.com/shlyuz/shlyuz/http/openai"
	"github.com/shlyuz/shlyuz/http/openrouter"
	"github.com/shlyuz/shlyuz/http/responses"
)

// Server is the Fiber app with every client protocol mounted.
type Server struct{ *api.Server }

// Options tune the HTTP layer.
type Options = api.Options

// MaxTokensHeader tells a client that set no max_tokens the completion
// ceiling the gateway chose (api.MaxTokensHeader).
const MaxTokensHeader = api.MaxTokensHeader

// New builds the app with every route.
func New(gw *actors.Gateway, o Options) *Server {
	if o.BodyLimit <= 0 {
		o.BodyLimit = 32 << 20
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = time.Second
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	o.HeaderTimeout = orDuration(o.HeaderTimeout, 10*time.Second)
	o.IdleTimeout = orDuration(o.IdleTimeout, 2*time.Minute)
	o.BodyGrace = orDuration(o.BodyGrace, 5*time.Second)
	if o.MinBodyRate <= 0 {
		o.MinBodyRate = 1024
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 10000
	}
	if o.BodyMemory <= 0 {
		o.BodyMemory = 512 << 20
	}
	s := &Server{&api.Server{Gw: gw, Opts: o, Log: o.Log}}
	s.Bodies.Max = o.BodyMemory
	s.App = fiber.New(fiber.Config{
		BodyLimit:             o.BodyLimit,
		DisableStartupMessage: true,
		ErrorHandler:          s.ErrorHandler,
		ReadBufferSize:        16 << 10,
		// Bodies are read by readBody (body.go), as they arrive and bounded per
		// route; fasthttp neither reserves their announced size nor parses a
		// multipart form ahead.
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		ReduceMemoryUsage:            true, // idle connections hold no buffers
		// ReadTimeout bounds the headers (readBody takes over for the body).
		// No WriteTimeout: it would cut long streams.
		ReadTimeout: o.HeaderTimeout,
		IdleTimeout: o.IdleTimeout,
	})
	s.App.Server().HeaderReceived = s.HeaderReceived
	s.guardMethods() // refusals.go

	s.App.Use(recover.New()) // a bug in one request is that request's 500, not the gateway's end
	s.App.Use(requestID)
	if o.Metrics != nil {
		s.App.Use(s.measure)
	}
	if o.Tracing {
		s.App.Use("/api", s.traceRequest)
	}
	s.App.Use(s.ReadBody)
	if o.Metrics != nil {
		if o.PublicMetrics {
			s.App.Get("/metrics", adaptor.HTTPHandler(o.Metrics.Handler()))
		} else {
			s.App.Get("/metrics", s.AdminAuth, adaptor.HTTPHandler(o.Metrics.Handler()))
		}
	}

	s.App.Use("/api", s.cors())
	s.App.Get("/healthz", s.healthz)
	s.App.Get("/readyz", s.readyz)

	openrouter.MountPublic(s.App.Group("/api"), s.Server)
	v1 := s.App.Group("/api/v1")
	chatAs := openai.Mount(v1, s.Server)        // /chat/completions, /embeddings
	openrouter.Mount(v1, s.Server)              // the account surface
	media.Mount(v1, s.Server)                   // /videos, /images, /audio
	anthropic.Mount(v1, s.Server)               // /messages
	responses.Mount(v1, s.Server)               // /responses
	gemini.Mount(s.App.Group("/api"), s.Server) // /v1beta/models/…, /v1/v1beta/models/…

	if o.AdminToken != "" {
		group := s.App.Group("/api/admin", s.AdminAuth)
		admin.Mount(group, s.Server)
		if o.WebAdmin != nil {
			o.WebAdmin(group)
		}
		s.App.Use("/debug/pprof", s.AdminAuth, pprof.New())
	} else {
		s.App.Use("/api/admin", operatorAPIOff)
	}
	if o.Web != nil {
		o.Web(s.App, chatAs)
	}
	s.App.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
	return s
}

// Serve serves on ln, at most MaxConns connections at once, each dropped
// unless its first request begins within HeaderTimeout.
func (s *Server) Serve(ln net.Listener) error {
	return s.App.Listener(&api.CapListener{Listener: ln, Max: int64(s.Opts.MaxConns), FirstByte: s.Opts.HeaderTimeout})
}

func orDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// WaitStreams waits until every open stream has settled, or the timeout passes.
func (s *Server) WaitStreams(timeout time.Duration) bool {
	done := make(chan struct{})
	go func() { s.Streams.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// measure records the route, status and duration of every request.
func (s *Server) measure(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	status := c.Response().StatusCode()
	if err != nil {
		status = api.StatusOf(err)
	}
	s.Opts.Metrics.HTTP(c.Route().Path, status, time.Since(start))
	return err
}

func requestID(c *fiber.Ctx) error {
	c.Set("X-Request-Id", api.NewID("req-"))
	return c.Next()
}
