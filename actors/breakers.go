package actors

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/sony/gobreaker/v2"
)

// errNotThisBreaker is the outcome a breaker is told of a call whose failure
// belongs to the other breaker of the slot: neither success nor failure.
var errNotThisBreaker = errors.New("counted by the other breaker")

// errBreakerOpen is a breaker's refusal.
var errBreakerOpen = errors.New("the circuit breaker is open")

// firstProbe is how soon a tripped breaker lets a probe through: an upstream
// that blinks is served again a quarter of a second after it is back.
const firstProbe = 250 * time.Millisecond

// breaker is a two-step circuit breaker (Allow, then the call's outcome to
// done exactly once) that trips after the configured run of upstream faults
// and ignores cancelled calls. Unlike a breaker with one fixed open period,
// it probes firstProbe after a trip and doubles the pause after each failed
// probe up to open_for (1 s by default), so that however long an outage
// lasts, the upstream is served again within open_for of its recovery
// while every request between two probes gets a fast 503; while the
// upstream refuses connections (it is restarting, not sick) it probes every
// firstProbe.
type breaker struct {
	name    string
	cfg     shlyuz.BreakerConfig
	onState func(name string, from, to gobreaker.State)
	now     func() time.Time

	mu         sync.Mutex
	state      gobreaker.State
	generation uint64 // outcomes of calls allowed before a change of state are ignored
	failures   uint32 // consecutive, while closed
	probes     uint32 // in flight, while half-open
	successes  uint32 // while half-open
	pause      time.Duration
	until      time.Time // open until
}

// newBreaker is a breaker with the upstream's settings and a clock (nil: time.Now).
func newBreaker(cfg shlyuz.UpstreamConfig, name string, now func() time.Time, onState func(string, gobreaker.State, gobreaker.State)) *breaker {
	if now == nil {
		now = time.Now
	}
	return &breaker{name: name, cfg: cfg.Breaker, onState: onState, now: now}
}

// State is the breaker's state now (an open breaker past its pause is
// half-open).
func (b *breaker) State() gobreaker.State {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == gobreaker.StateOpen && !b.now().Before(b.until) {
		return gobreaker.StateHalfOpen
	}
	return b.state
}

// RetryIn is how long until the breaker lets a probe through (at least a second).
func (b *breaker) RetryIn() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(time.Second, b.until.Sub(b.now()))
}

// Allow lets a call through, or refuses it while open (or while half-open
// with its probes out). done must be called exactly once with the outcome.
func (b *breaker) Allow() (done func(error), err error) {
	gen, err := b.allow()
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func(outcome error) { once.Do(func() { b.done(gen, outcome) }) }, nil
}

// allow is Allow without the closure: the caller tells done(gen, outcome)
// exactly once.
func (b *breaker) allow() (gen uint64, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case gobreaker.StateOpen:
		if b.now().Before(b.until) {
			return 0, errBreakerOpen
		}
		b.setState(gobreaker.StateHalfOpen)
		fallthrough
	case gobreaker.StateHalfOpen:
		if b.probes >= max(b.cfg.HalfOpenProbes, 1) {
			return 0, errBreakerOpen
		}
		b.probes++
	}
	return b.generation, nil
}

func (b *breaker) done(gen uint64, outcome error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if gen != b.generation {
		return
	}
	halfOpen := b.state == gobreaker.StateHalfOpen
	if halfOpen {
		b.probes--
	}
	switch {
	case excluded(outcome):
	case !upstreamFault(outcome):
		b.failures = 0
		if halfOpen {
			if b.successes++; b.successes >= max(b.cfg.HalfOpenProbes, 1) {
				b.pause = 0
				b.setState(gobreaker.StateClosed)
			}
		}
	case halfOpen:
		b.trip(outcome)
	default:
		if b.failures++; b.failures >= b.cfg.ConsecutiveFailures {
			b.trip(outcome)
		}
	}
}

// trip opens the breaker: the first pause is firstProbe (or open_for when
// shorter), each failed probe doubles it up to open_for, and a refused
// connection keeps it at firstProbe.
func (b *breaker) trip(outcome error) {
	first := min(firstProbe, max(b.cfg.OpenFor, time.Millisecond))
	switch {
	case b.pause == 0 || refused(outcome):
		b.pause = first
	default:
		b.pause = min(2*b.pause, max(b.cfg.OpenFor, first))
	}
	b.until = b.now().Add(b.pause)
	b.setState(gobreaker.StateOpen)
}

func (b *breaker) setState(to gobreaker.State) {
	from := b.state
	b.state, b.generation = to, b.generation+1
	b.failures, b.probes, b.successes = 0, 0, 0
	if b.onState != nil && from != to {
		b.onState(b.name, from, to)
	}
}

// excluded is an outcome that counts neither way: the client left, or the
// other breaker of the slot counts it.
func excluded(err error) bool {
	return err != nil && errors.Is(err, errClientGone) || errors.Is(err, context.Canceled) || errors.Is(err, errNotThisBreaker)
}

// upstreamFault is an outcome the breaker counts as a failure.
func upstreamFault(err error) bool {
	if err == nil {
		return false
	}
	var e *shlyuz.Error
	if errors.As(err, &e) {
		return e.UpstreamFault
	}
	return err != nil
}

// refused is a failure to connect because nothing listens: an upstream
// restarting rather than a sick one.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// modelBreaker is the upstream's breaker for one model, made on first use.
func (g *guard) modelBreaker(model string) *breaker {
	if b, ok := g.models.Load(model); ok {
		return b.(*breaker)
	}
	b, _ := g.models.LoadOrStore(model, newBreaker(g.cfg, g.cfg.Name+"/"+model, g.now, nil))
	return b.(*breaker)
}

// slot is a call's leave from its upstream's breaker and its model's
// there, released exactly once with the call's outcome (guard.release).
type slot struct {
	model           *breaker
	upGen, modelGen uint64
}

// split tells each breaker its share of a call's outcome: a fault of the
// model alone (ModelFault) counts at the model's breaker only; any other
// upstream fault at the upstream's only; a success at both.
func (s slot) split(up *breaker, outcome error) {
	if outcome == nil {
		up.done(s.upGen, nil)
		s.model.done(s.modelGen, nil)
		return
	}
	var e *shlyuz.Error
	switch {
	case errors.As(outcome, &e) && e.UpstreamFault && e.ModelFault:
		up.done(s.upGen, errNotThisBreaker)
		s.model.done(s.modelGen, outcome)
	default:
		up.done(s.upGen, outcome)
		s.model.done(s.modelGen, errNotThisBreaker)
	}
}
