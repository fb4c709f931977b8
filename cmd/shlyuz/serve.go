package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/cluster"
	shzhttp "github.com/shlyuz/shlyuz/http"
	"github.com/shlyuz/shlyuz/metrics"
	"github.com/shlyuz/shlyuz/persistence/cockroach"
	"github.com/shlyuz/shlyuz/persistence/sqlite"
	"github.com/shlyuz/shlyuz/providers/anthropic"
	"github.com/shlyuz/shlyuz/providers/bfl"
	"github.com/shlyuz/shlyuz/providers/gemini"
	"github.com/shlyuz/shlyuz/providers/gigachat"
	"github.com/shlyuz/shlyuz/providers/kling"
	"github.com/shlyuz/shlyuz/providers/minimax"
	"github.com/shlyuz/shlyuz/providers/openai"
	"github.com/shlyuz/shlyuz/providers/salute"
	"github.com/shlyuz/shlyuz/providers/yandex"
	"github.com/shlyuz/shlyuz/tracing"
	_ "time/tzdata" // key periods in Europe/Moscow on machines without zone files
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", envOr("SHLYUZ_LISTEN", ""), "address to listen on (default 127.0.0.1:8080)")
	db := fs.String("db", envOr("SHLYUZ_DB", ""), "sqlite://PATH or postgres://… (default sqlite://./shlyuz.db)")
	configPath := fs.String("config", envOr("SHLYUZ_CONFIG", ""), "YAML config file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := loadConfig(*configPath)
	if err != nil {
		return bad("--config (SHLYUZ_CONFIG)", err)
	}
	if err := validateConfig(cfg); err != nil {
		return err
	}
	if *listen == "" {
		*listen = cfg.Listen
	}
	if *listen == "" {
		*listen = "127.0.0.1:8080"
	}
	if *db == "" {
		*db = cfg.DB
	}
	if *db == "" {
		*db = "sqlite://./shlyuz.db"
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	addr, err := reserve(*listen)
	if err != nil {
		return bad("--listen (SHLYUZ_LISTEN, listen in the config)", err)
	}
	in, err := start(ctx, cfg, addr, *db, log)
	if err != nil {
		addr.Close()
		return err
	}
	log.Info("shlyuz is serving", "listen", addr.Addr().String(), "db", redactDSN(*db), "models", len(in.gw.Catalog().List()))
	select {
	case err := <-in.served:
		in.shutdown()
		return err
	case <-ctx.Done():
	}
	return in.shutdown()
}

// instance is a running gateway.
type instance struct {
	log     *slog.Logger
	store   shlyuz.Store
	journal *actors.Journal
	gw      *actors.Gateway
	dir     *cluster.Directory
	lease   *cluster.Lease
	srv     *shzhttp.Server
	served  chan error
	cleanup []func()
}

// address is where the gateway serves: known (and its port taken) before the
// gateway is ready, accepting connections only once it is.
type address interface {
	Addr() net.Addr
	Listen() (net.Listener, error)
	Close() error
}

// listening is an address that listens already.
type listening struct{ net.Listener }

func (l listening) Listen() (net.Listener, error) { return l.Listener, nil }

// start opens the store, starts the actors, joins the cluster and serves on addr.
// On an error everything it had started is stopped again, and the error
// names the setting to change.
func start(ctx context.Context, cfg *Config, addr address, db string, log *slog.Logger) (*instance, error) {
	in := &instance{log: log, served: make(chan error, 1)}
	if err := in.start(ctx, cfg, addr, db); err != nil {
		in.runCleanup()
		return nil, err
	}
	return in, nil
}

func (in *instance) start(ctx context.Context, cfg *Config, addr address, db string) (err error) {
	log := in.log
	cs, err := resolveCluster(cfg, db)
	if err != nil {
		return err
	}
	store, err := openStoreSetting(ctx, db)
	if err != nil {
		return err
	}
	in.store = store
	in.cleanup = append(in.cleanup, func() { _ = store.Close() })
	if err := seed(ctx, store, cfg); err != nil {
		return bad("--db (SHLYUZ_DB, db in the config)", err)
	}
	loc, err := time.LoadLocation(envOr("SHLYUZ_TIMEZONE", orDefault(cfg.Timezone, "Europe/Moscow")))
	if err != nil {
		return bad("timezone (SHLYUZ_TIMEZONE)", err)
	}
	models, err := shlyuz.EmbeddedModels()
	if err != nil {
		return err
	}
	models = shlyuz.MergeModels(models, cfg.Models)
	if err := applyLifecycle(models, cfg.Lifecycle); err != nil {
		return err
	}

	upCfgs, routes := cfg.Upstreams, cfg.Routes
	builtIn := len(upCfgs) == 0
	demo := builtIn
	if cfg.Demo != nil {
		demo = *cfg.Demo
	}
	if builtIn {
		models = append(models, demoVideoModel())
		up, route, stopDemo, err := startDemo()
		if err != nil {
			return err
		}
		in.cleanup = append(in.cleanup, stopDemo)
		upCfgs, routes = []shlyuz.UpstreamConfig{up}, []shlyuz.Route{route}
		log.Info("no upstream configured: the built-in demo upstream serves the demo/ models")
	}
	if err := checkRoutes(routes, models); err != nil {
		return err
	}
	warnUpstreams(log, upCfgs, routes)
	ups := make([]*actors.Upstream, 0, len(upCfgs))
	for i, u := range upCfgs {
		u = u.WithDefaults()
		p, err := newProvider(u)
		if err != nil {
			return bad(fmt.Sprintf("upstreams[%d] (%s)", i, u.Name), err)
		}
		ups = append(ups, &actors.Upstream{Config: u, Provider: p})
	}

	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return quiet }))
	if err := in.joinCluster(ctx, cs, sys.ID, addr.Addr().String()); err != nil {
		return err
	}
	stopTracing, tracingOn, err := tracing.Start(cfg.Tracing, version())
	if err != nil {
		return bad("tracing", err)
	}
	in.cleanup = append(in.cleanup, func() { // registered early: flushed after the last settlement
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = stopTracing(ctx)
	})
	if tracingOn {
		log.Info("tracing: exporting OpenTelemetry traces", "endpoint", redactDSN(cfg.Tracing.Endpoint))
	}
	m := metrics.New()
	vopts, err := videoOptions(ctx, cfg, db)
	if err != nil {
		return err
	}
	in.journal = actors.NewJournal(store, cfg.JournalInterval, log,
		actors.JournalMetrics{BatchSize: m.JournalBatch, LogWrite: m.JournalWrite, Lag: m.JournalLag, Failed: m.JournalFailed})
	if err := in.recoverJournal(ctx, cs, db); err != nil {
		return err
	}
	web, err := webSearchEngine(cfg.WebSearch)
	if err != nil {
		return bad("web_search", err)
	}
	in.gw, err = actors.New(actors.Options{System: sys, Store: store, Journal: in.journal, Location: loc,
		Upstreams: ups, Routes: routes, Models: models, Log: log, OnBreaker: m.Breaker, Observe: m.Generation,
		Lease: in.lease, DurableSettle: cs.durable, Video: vopts, ActorIdle: actorIdle(cfg.ActorIdle),
		MaxKeys: cfg.MaxKeysPerAccount, WebSearch: web})
	if err != nil {
		return bad("routes", err)
	}
	m.Gauges(func() float64 { return float64(in.gw.InFlight()) }, func() float64 { return float64(in.gw.ReservedCredits()) })
	upNames := make([]string, len(ups))
	for i, u := range ups {
		upNames[i] = u.Config.Name
	}
	m.Upstreams(upNames)
	in.cleanup = append(in.cleanup, startReconciling(store, m, reconcileEvery(cfg.Metrics.ReconcileInterval), log))
	in.dir, err = cluster.Start(sys, cluster.Config{Host: cs.host, Port: cs.port, Mode: cs.mode, Lease: in.lease, Advertise: cs.advertise,
		Peers: cfg.Cluster.Peers, AutoPort: cfg.Cluster.AutoPort}, in.gw.Kinds())
	if err != nil {
		return bad("cluster", err)
	}
	if err := in.gw.Attach(ctx, in.dir); err != nil {
		return err
	}
	if err := in.startVideos(ctx, cfg.Video.Sweep); err != nil {
		return err
	}
	if demo {
		if err := bootstrapDemo(ctx, store, in.gw, demoKeyPath(db), log); err != nil {
			return fmt.Errorf("demo bootstrap: %w", err)
		}
	}
	adminToken := os.Getenv("SHLYUZ_ADMIN_TOKEN")
	if err := checkAdminToken(adminToken); err != nil {
		return err
	}
	if adminToken != "" {
		log.Info("the operator API is on (/api/admin, SHLYUZ_ADMIN_TOKEN is set)")
	} else {
		log.Info("the operator API is off: set SHLYUZ_ADMIN_TOKEN to turn it on")
	}
	area, err := webArea(cfg, in.gw, addr.Addr(), loc, db, log)
	if err != nil {
		return bad("web", err)
	}
	var mountWeb func(*fiber.App, func(*fiber.Ctx, string) error)
	var webAdmin func(fiber.Router)
	if area != nil {
		mountWeb, webAdmin = area.Mount, area.AdminRoutes
	}
	stopRates, err := startRates(cfg, in.gw, log)
	if err != nil {
		return bad("exchange_rate", err)
	}
	in.cleanup = append(in.cleanup, stopRates)
	in.srv = shzhttp.New(in.gw, shzhttp.Options{BodyLimit: cfg.BodyLimit, Heartbeat: cfg.Heartbeat,
		AdminToken: adminToken, Log: log, Metrics: m, CORSOrigins: corsOrigins(cfg.CORS.AllowedOrigins), Web: mountWeb, WebAdmin: webAdmin,
		HeaderTimeout: cfg.HTTP.HeaderTimeout, IdleTimeout: cfg.HTTP.IdleTimeout, BodyGrace: cfg.HTTP.BodyGrace,
		MinBodyRate: cfg.HTTP.MinBodyRate, MaxConns: cfg.HTTP.MaxConnections, PublicMetrics: cfg.Metrics.Public,
		Tracing: tracingOn})
	ln, err := addr.Listen() // ready: from now on connections are accepted
	if err != nil {
		return bad("--listen (SHLYUZ_LISTEN, listen in the config)", err)
	}
	go func() { in.served <- in.srv.Serve(ln) }()
	return nil
}

// shutdown drains requests and streams, stops the actors and commits the journal.
func (in *instance) shutdown() error {
	defer in.runCleanup()
	in.log.Info("shutting down: draining requests")
	_ = in.srv.App.ShutdownWithTimeout(30 * time.Second)
	if !in.srv.WaitStreams(10 * time.Second) {
		in.log.Error("some streams did not settle before the deadline")
	}
	if err := in.gw.Drain(10 * time.Second); err != nil {
		in.log.Error("some account actors did not drain", "err", err)
	}
	in.leaveCluster()
	in.gw.Stop()
	in.dir.Stop()
	fctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := in.journal.Close(fctx); err != nil {
		return fmt.Errorf("final journal commit: %w", err)
	}
	in.log.Info("stopped; every charge is committed")
	return nil
}

func (in *instance) runCleanup() {
	for i := len(in.cleanup) - 1; i >= 0; i-- {
		in.cleanup[i]()
	}
	in.cleanup = nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func openStore(ctx context.Context, dsn string) (shlyuz.Store, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite://"):
		path := strings.TrimPrefix(dsn, "sqlite://")
		if err := sqliteFolder(path); err != nil {
			return nil, err
		}
		return sqlite.Open(ctx, path)
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return cockroach.Open(ctx, dsn)
	}
	return nil, fmt.Errorf("--db must start with sqlite://, postgres:// or postgresql://")
}

// redactDSN hides a password in a DSN before it is logged.
func redactDSN(dsn string) string {
	at := strings.LastIndexByte(dsn, '@')
	scheme := strings.Index(dsn, "://")
	if at < 0 || scheme < 0 {
		return dsn
	}
	if colon := strings.IndexByte(dsn[scheme+3:at], ':'); colon >= 0 {
		return dsn[:scheme+3+colon] + ":***" + dsn[at:]
	}
	return dsn
}

// newProvider makes the adapter of an upstream's protocol.
func newProvider(u shlyuz.UpstreamConfig) (shlyuz.Provider, error) {
	switch u.Protocol {
	case "openai":
		return openai.Open(u)
	case "anthropic":
		return anthropic.New(u)
	case "gemini":
		return gemini.New(u)
	case "gigachat":
		return gigachat.New(u)
	case "yandex":
		return yandex.New(u)
	case "kling": // video only
		return kling.New(u)
	case "minimax": // video only
		return minimax.New(u)
	case "bfl": // images only
		return bfl.New(u)
	case "salute": // audio only
		return salute.New(u)
	}
	return nil, fmt.Errorf("protocol %q is not supported (openai, anthropic, gemini, gigachat, yandex, kling, minimax, bfl, salute)", u.Protocol)
}

// seed applies the config's pricing (when none is stored) and plans.
func seed(ctx context.Context, store shlyuz.Store, cfg *Config) error {
	if cfg.Pricing != nil {
		_, ok, err := store.Settings(ctx)
		if err != nil {
			return err
		}
		if !ok {
			if err := store.SaveSettings(ctx, shlyuz.Settings{Pricing: shlyuz.Pricing{Rate: cfg.Pricing.Rate, K: cfg.Pricing.K}, UpdatedAt: time.Now().UTC()}); err != nil {
				return err
			}
		}
	}
	for _, p := range cfg.Plans { // validated by validateConfig
		if err := store.SavePlan(ctx, p); err != nil {
			return err
		}
	}
	return nil
}
