package actors_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/cluster"
	"github.com/shlyuz/shlyuz/persistence/aheadlog"
	"github.com/shlyuz/shlyuz/persistence/sqlite"
)

// testUpstream is one upstream of a test gateway.
type testUpstream struct {
	name       string
	provider   shlyuz.Provider
	multiplier string // price multiplier; "": 1
	baseURL    string // the upstream's address, for an adapter that reaches one
}

// tb is what the gateway helpers need of a test: a *testing.T or B, or the
// package's shared one for a gateway that lives as long as the test binary.
type tb interface {
	Helper()
	Fatal(args ...any)
	TempDir() string
	Cleanup(func())
}

// mainTB is the shared tb: its cleanups run when TestMain ends.
type mainTB struct {
	dirs     []string
	cleanups []func()
}

var sharedTB = &mainTB{}

func (*mainTB) Helper()            {}
func (*mainTB) Fatal(args ...any)  { panic(fmt.Sprint(args...)) }
func (m *mainTB) Cleanup(f func()) { m.cleanups = append(m.cleanups, f) }
func (m *mainTB) TempDir() string {
	d, err := os.MkdirTemp("", "shlyuz-actors-")
	if err != nil {
		panic(err)
	}
	m.dirs = append(m.dirs, d)
	return d
}

func (m *mainTB) close() {
	for i := len(m.cleanups) - 1; i >= 0; i-- {
		m.cleanups[i]()
	}
	for _, d := range m.dirs {
		_ = os.RemoveAll(d)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	sharedTB.close()
	os.Exit(code)
}

// testActorIdle passivates the test gateways' idle actors quickly: every
// test then also shows that passivation loses nothing.
const testActorIdle = 100 * time.Millisecond

// testGateway is a one-node gateway on a SQLite file, its store, and a way to
// make funded accounts and keys on it.
type testGateway struct {
	*actors.Gateway
	commits *atomic.Int64 // the journal's commits that wrote anything
	store   *sqlite.Store
	tb      tb
	lossy   *actors.LossyDirectory // the gateway's directory, which can lose answers
}

// newTestGateway is a one-node gateway on a SQLite file routing every model
// to the upstreams in order, with an account holding plenty of credits and a
// key with a huge ceiling (its hash is returned); 2^49 credits, under the
// most an account may hold.
func newTestGateway(tb tb, ups ...testUpstream) (*actors.Gateway, string) {
	tg := startTestGateway(tb, ups...)
	return tg.Gateway, tg.account("acc-bench", 1<<49, 1<<49)
}

// startTestGateway starts a gateway whose models "bench/model" and
// "text/model" are routed to every upstream, and to the first only.
// Only one may run at a time in a test binary under -race (protoactor's
// cluster members race on gRPC's logger): tests share one.
func startTestGateway(tb tb, ups ...testUpstream) *testGateway {
	return startIdleGateway(tb, testActorIdle, 0, ups...)
}

// startIdleGateway is startTestGateway with another idle time before passivation.
func startIdleGateway(tb tb, idle time.Duration, batch int64, ups ...testUpstream) *testGateway {
	return startGateway(tb, idle, batch, false, ups...)
}

// startGateway is startIdleGateway, with durable settlement (a reply waits
// for its charge's commit) when durable is set.
func startGateway(tb tb, idle time.Duration, batch int64, durable bool, ups ...testUpstream) *testGateway {
	tb.Helper()
	return startGatewayLogged(tb, idle, batch, durable, false, ups...)
}

// startGatewayLogged is startGateway whose journal keeps a write-ahead log
// beside its database when logged is set, as serve does on SQLite.
func startGatewayLogged(tb tb, idle time.Duration, batch int64, durable, logged bool, ups ...testUpstream) *testGateway {
	tb.Helper()
	return startGatewayClocked(tb, idle, batch, durable, logged, nil, ups...)
}

// startGatewayClocked is startGatewayLogged on a clock (nil: time.Now).
func startGatewayClocked(tb tb, idle time.Duration, batch int64, durable, logged bool, now func() time.Time, ups ...testUpstream) *testGateway {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "gateway.db")
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return quiet }))
	commits := new(atomic.Int64)
	journal := actors.NewJournal(store, 20*time.Millisecond, quiet, actors.JournalMetrics{BatchSize: func(int) { commits.Add(1) }})
	if logged {
		l, err := aheadlog.Open(path + "-ahead")
		if err != nil {
			tb.Fatal(err)
		}
		if err := journal.Recover(ctx, l); err != nil {
			tb.Fatal(err)
		}
	}
	model := shlyuz.Model{ID: "bench/model", Name: "bench", InputModalities: []string{"text"}, OutputModalities: []string{"text"},
		USD: shlyuz.USDPrice{PromptPerMTok: shlyuz.MustDecimal("1"), CompletionPerMTok: shlyuz.MustDecimal("2")}}
	text := model
	text.ID = "text/model"
	var upstreams []*actors.Upstream
	var names []string
	for _, u := range ups {
		cfg := shlyuz.UpstreamConfig{Name: u.name, MaxConcurrent: 100000, BaseURL: u.baseURL}
		if u.multiplier != "" {
			cfg.PriceMultiplier = shlyuz.MustDecimal(u.multiplier)
		}
		upstreams = append(upstreams, &actors.Upstream{Config: cfg, Provider: u.provider})
		names = append(names, u.name)
	}
	gw, err := actors.New(actors.Options{System: sys, Store: store, Journal: journal, Log: quiet, ActorIdle: idle, PassivateBatch: batch, DurableSettle: durable, Now: now,
		Upstreams: upstreams, Models: []shlyuz.Model{model, text},
		Routes: []shlyuz.Route{{Match: "text/model", Upstreams: names[:1]}, {Match: "*", Upstreams: names}}})
	if err != nil {
		tb.Fatal(err)
	}
	dir, err := cluster.Start(sys, cluster.Config{}, gw.Kinds())
	if err != nil {
		tb.Fatal(err)
	}
	lossy := actors.NewLossyDirectory(dir)
	if err := gw.Attach(ctx, lossy); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		gw.Stop()
		dir.Stop()
		_ = journal.Close(context.Background())
		_ = store.Close()
	})
	return &testGateway{Gateway: gw, commits: commits, store: store, tb: tb, lossy: lossy}
}

// account makes an account with the credits and a key with the ceiling
// (a monthly one); it returns the key's hash.
func (tg *testGateway) account(id string, credits, ceiling shlyuz.Credits) string {
	tg.tb.Helper()
	ctx := context.Background()
	if err := tg.store.CreateAccount(ctx, shlyuz.Account{ID: id, Email: id + "@example.com", CreatedAt: time.Now()}); err != nil {
		tg.tb.Fatal(err)
	}
	if _, _, err := tg.TopUp(id, credits, "seed-"+id); err != nil {
		tg.tb.Fatal(err)
	}
	plain, hash := shlyuz.NewKeySecret()
	if err := tg.store.CreateKey(ctx, shlyuz.Key{ID: "key-" + id, AccountID: id, Hash: hash, Label: shlyuz.MaskKey(plain),
		Limit: &ceiling, LimitReset: shlyuz.ResetMonth, CreatedAt: time.Now()}, 0); err != nil {
		tg.tb.Fatal(err)
	}
	return hash
}
