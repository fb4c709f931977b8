package http

import (
	"crypto/rand"
	"encoding/base32"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/gofiber/fiber/v2/middleware/pprof"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/metrics"
)

// Options tune the HTTP layer.
type Options struct {
	BodyLimit  int           // bytes; default 32 MiB
	Heartbeat  time.Duration // SSE comment while a stream is idle; default 1s
	AdminToken string        // empty: the operator API is off
	Log        *slog.Logger
	// Metrics, when set, records every request and serves GET /metrics, to
	// the admin token's bearer unless PublicMetrics.
	Metrics       *metrics.Metrics
	PublicMetrics bool
	// CORSOrigins may call /api from a browser (["*"]: any; empty: the default,
	// any, as OpenRouter allows); the operator API is never open to them.
	CORSOrigins []string
	// Web, when set, mounts the web account area (http/web) on the app; its
	// chat answers through chat.
	Web func(app *fiber.App, chat func(c *fiber.Ctx, keyHash string) error)
	// WebAdmin, when set, adds the web area's operator routes (payments' refunds) under /api/admin.
	WebAdmin func(r fiber.Router)
	// Slow and idle clients (body.go): a new connection's first byte, and a
	// request's headers after their first byte, must arrive within
	// HeaderTimeout (default 10s), a keep-alive connection may idle IdleTimeout
	// (default 2m), a body must arrive at MinBodyRate bytes a second (default
	// 1024) after BodyGrace (default 5s); at most MaxConns connections are open
	// at once (default 10,000; see Serve).
	HeaderTimeout time.Duration
	IdleTimeout   time.Duration
	BodyGrace     time.Duration
	MinBodyRate   int
	MaxConns      int
	// BodyMemory bounds the bytes all request bodies being read hold at once
	// (default 512 MiB); past it a request is answered 503.
	BodyMemory int64
	// Tracing: a span for every /api request (tracing.go); the tracer
	// provider is the global one that package tracing installs.
	Tracing bool
}

// Server is the Fiber app and what it needs.
type Server struct {
	App      *fiber.App
	gw       *actors.Gateway
	opts     Options
	log      *slog.Logger
	streams  sync.WaitGroup // streams still writing, for a graceful stop
	scavenge scavenger      // hands memory back after large bodies
	bodies   bodyBudget     // the memory of bodies in flight
	// readingAnthropic: the requests for a Messages route that fasthttp is
	// still reading (refusals.go).
	readingAnthropic sync.Map
}

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
	s := &Server{gw: gw, opts: o, log: o.Log}
	s.bodies.max = o.BodyMemory
	s.App = fiber.New(fiber.Config{
		BodyLimit:             o.BodyLimit,
		DisableStartupMessage: true,
		ErrorHandler:          s.errorHandler,
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
	s.App.Server().HeaderReceived = s.headerReceived
	s.guardMethods() // refusals.go

	s.App.Use(recover.New()) // a bug in one request is that request's 500, not the gateway's end
	s.App.Use(requestID)
	if o.Metrics != nil {
		s.App.Use(s.measure)
	}
	if o.Tracing {
		s.App.Use("/api", s.traceRequest)
	}
	s.App.Use(s.readBody)
	if o.Metrics != nil {
		if o.PublicMetrics {
			s.App.Get("/metrics", adaptor.HTTPHandler(o.Metrics.Handler()))
		} else {
			s.App.Get("/metrics", s.adminAuth, adaptor.HTTPHandler(o.Metrics.Handler()))
		}
	}

	s.App.Use("/api", s.cors())
	s.App.Get("/healthz", s.healthz)
	s.App.Get("/readyz", s.readyz)

	pub := s.App.Group("/api")
	pub.Get("/models", s.publicModels)
	pub.Get("/pricing", s.publicPricing)
	pub.Get("/plans", s.publicPlans)

	v1 := s.App.Group("/api/v1")
	v1.Post("/chat/completions", keyHashOnly, s.chatCompletions)
	s.catalogRoutes(v1) // openrouter_catalog.go
	s.keyRoutes(v1)     // openrouter_keys.go
	v1.Get("/key", s.authenticated, s.keyInfo)
	v1.Get("/credits", s.authenticated, s.credits)
	v1.Get("/generation", s.authenticated, s.generation)
	s.videoRoutes(v1) // videos.go
	s.imageRoutes(v1)
	s.audioRoutes(v1)                               // audio.go
	s.messagesRoutes(v1)                            // messages.go: Anthropic's Messages API
	v1.Post("/responses", keyHashOnly, s.responses) // responses.go: OpenAI's Responses API
	v1.Post("/embeddings", keyHashOnly, s.createEmbeddings)

	if o.AdminToken != "" {
		admin := s.App.Group("/api/admin", s.adminAuth)
		s.adminRoutes(admin)
		if o.WebAdmin != nil {
			o.WebAdmin(admin)
		}
		s.App.Use("/debug/pprof", s.adminAuth, pprof.New())
	} else {
		s.App.Use("/api/admin", operatorAPIOff)
	}
	if o.Web != nil {
		o.Web(s.App, s.ChatAs)
	}
	s.App.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
	return s
}

// Serve serves on ln, at most MaxConns connections at once, each dropped
// unless its first request begins within HeaderTimeout.
func (s *Server) Serve(ln net.Listener) error {
	return s.App.Listener(&capListener{Listener: ln, max: int64(s.opts.MaxConns), firstByte: s.opts.HeaderTimeout})
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
	go func() { s.streams.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newID is a random id with a prefix: gen-<unix>-<20 random chars>.
func newID(prefix string) string {
	var b [15]byte
	_, _ = rand.Read(b[:])
	return prefix + strconv.FormatInt(time.Now().Unix(), 10) + "-" + idEncoding.EncodeToString(b[:])
}

// measure records the route, status and duration of every request.
func (s *Server) measure(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	status := c.Response().StatusCode()
	if err != nil {
		status = statusOf(err)
	}
	s.opts.Metrics.HTTP(c.Route().Path, status, time.Since(start))
	return err
}

func requestID(c *fiber.Ctx) error {
	c.Set("X-Request-Id", newID("req-"))
	return c.Next()
}
