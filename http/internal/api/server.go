package api

import (
	"crypto/rand"
	"encoding/base32"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
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

// Server is what every handler needs: the Fiber app, the gateway, the
// options, the streams still writing and the memory of bodies in flight.
type Server struct {
	App      *fiber.App
	Gw       *actors.Gateway
	Opts     Options
	Log      *slog.Logger
	Streams  sync.WaitGroup // streams still writing, for a graceful stop
	scavenge Scavenger      // hands memory back after large bodies
	Bodies   BodyBudget     // the memory of bodies in flight
	// ReadingAnthropic: the requests for a Messages route that fasthttp is
	// still reading (refusals.go).
	ReadingAnthropic sync.Map
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewID is a random id with a prefix: gen-<unix>-<20 random chars>.
func NewID(prefix string) string {
	var b [15]byte
	_, _ = rand.Read(b[:])
	var buf [64]byte // built in place: one allocation, the string
	id := append(buf[:0], prefix...)
	id = strconv.AppendInt(id, time.Now().Unix(), 10)
	id = append(id, '-')
	return string(idEncoding.AppendEncode(id, b[:]))
}
