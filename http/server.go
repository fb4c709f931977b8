package http

import (
	"crypto/rand"
	"encoding/base32"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/actors"
)

// Options tune the HTTP layer.
type Options struct {
	BodyLimit  int           // bytes; default 32 MiB
	Heartbeat  time.Duration // SSE comment while a stream is idle; default 1s
	AdminToken string        // empty: the operator API is off
	Log        *slog.Logger
	// Extra registers more routes (metrics, pprof) before the catch-all.
	Extra func(app *fiber.App)
}

// Server is the Fiber app and what it needs.
type Server struct {
	App     *fiber.App
	gw      *actors.Gateway
	opts    Options
	log     *slog.Logger
	streams sync.WaitGroup // streams still writing, for a graceful stop
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
	s := &Server{gw: gw, opts: o, log: o.Log}
	s.App = fiber.New(fiber.Config{
		BodyLimit:             o.BodyLimit,
		DisableStartupMessage: true,
		ErrorHandler:          s.errorHandler,
		ReadBufferSize:        16 << 10,
		// No WriteTimeout: it would cut long streams.
		IdleTimeout: 2 * time.Minute,
	})
	s.App.Use(requestID)

	pub := s.App.Group("/api")
	pub.Get("/models", s.publicModels)
	pub.Get("/pricing", s.publicPricing)
	pub.Get("/plans", s.publicPlans)

	v1 := s.App.Group("/api/v1")
	v1.Post("/chat/completions", keyHashOnly, s.chatCompletions)
	v1.Get("/models", s.authenticated, s.listModels)
	v1.Get("/key", s.authenticated, s.keyInfo)
	v1.Get("/credits", s.authenticated, s.credits)
	v1.Get("/generation", s.authenticated, s.generation)

	if o.AdminToken != "" {
		s.adminRoutes(s.App.Group("/api/admin", s.adminAuth))
	}
	if o.Extra != nil {
		o.Extra(s.App)
	}
	s.App.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
	return s
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

func requestID(c *fiber.Ctx) error {
	c.Set("X-Request-Id", newID("req-"))
	return c.Next()
}
