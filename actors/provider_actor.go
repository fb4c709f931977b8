package actors

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/sony/gobreaker/v2"
)

// errClientGone marks a call the client abandoned: neither success nor failure.
var errClientGone = errors.New("client went away")

// guard is an upstream's two-step circuit breaker and concurrency cap. Its
// state is safe for concurrent use, so a request takes and returns its slot
// in its own goroutine: a mailbox hop per slot cost more than the rest of the
// gateway's work (cmd/bench shows it), and the breaker and the counter
// need no serialization of their own.
type guard struct {
	cfg      shlyuz.UpstreamConfig
	breaker  *breaker         // the upstream's, for faults of the whole upstream
	models   sync.Map         // model id → *breaker
	now      func() time.Time // the breakers' clock
	inFlight atomic.Int64
}

// idleCloser is an adapter whose pooled connections can be dropped.
type idleCloser interface{ CloseIdleConnections() }

// newGuard makes an upstream's guard. When its breaker opens, the adapter's
// idle connections (when it has a pool) are dropped, so that the probe after
// the pause goes out on a new connection, not on one the upstream closed.
func newGuard(cfg shlyuz.UpstreamConfig, p shlyuz.Provider, onState func(string, gobreaker.State), now func() time.Time) *guard {
	closer, _ := p.(idleCloser)
	g := &guard{cfg: cfg, now: now}
	g.breaker = newBreaker(cfg, cfg.Name, now, func(name string, from, to gobreaker.State) {
		if to == gobreaker.StateOpen {
			if closer != nil {
				go closer.CloseIdleConnections() // not under the breaker's lock
			}
		}
		if onState != nil {
			onState(name, to)
		}
	})
	return g
}

// acquire takes a slot for a call of the model: the cap's room, the
// upstream breaker's leave and the model's. The returned function must reach
// release exactly once.
func (g *guard) acquire(model string) (slot, *shlyuz.Error) {
	if g.inFlight.Add(1) > int64(g.cfg.MaxConcurrent) {
		g.inFlight.Add(-1)
		return slot{}, shlyuz.ErrOverloaded(time.Second,
			"The upstream %q is at its limit of %d concurrent requests; retry shortly.", g.cfg.Name, g.cfg.MaxConcurrent)
	}
	upGen, err := g.breaker.allow()
	if err != nil {
		g.inFlight.Add(-1)
		return slot{}, shlyuz.ErrProviderUnavailable(g.breaker.RetryIn().Round(time.Second),
			"The upstream %q is failing and is paused; retry later.", g.cfg.Name)
	}
	mb := g.modelBreaker(model)
	modelGen, err := mb.allow()
	if err != nil {
		g.breaker.done(upGen, errNotThisBreaker)
		g.inFlight.Add(-1)
		return slot{}, shlyuz.ErrProviderUnavailable(mb.RetryIn().Round(time.Second),
			"The model %q is failing at the upstream %q and is paused there; retry later.", model, g.cfg.Name)
	}
	return slot{model: mb, upGen: upGen, modelGen: modelGen}, nil
}

// release reports the call's outcome to the breaker and frees the slot.
func (g *guard) release(s slot, outcome error) {
	s.split(g.breaker, outcome)
	g.inFlight.Add(-1)
}

// providerStats asks a provider actor for its upstream's state.
type providerStats struct{}

type providerStatsReply struct {
	State    gobreaker.State
	InFlight int
}

// providerActor owns one upstream's guard under the root supervisor and
// answers for its state.
type providerActor struct{ guard *guard }

func (p *providerActor) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*providerStats); ok {
		ctx.Respond(&providerStatsReply{State: p.guard.breaker.State(), InFlight: int(p.guard.inFlight.Load())})
	}
}
