package actors

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/sony/gobreaker/v2"
)

// slotAcquire asks a provider actor for leave to call its upstream.
type slotAcquire struct{}

type slotGranted struct {
	ID  uint64
	Err *shlyuz.Error
}

// slotRelease returns a slot with the call's outcome (nil: success).
type slotRelease struct {
	ID  uint64
	Err error
}

// providerStats asks for the breaker state and the slots in use.
type providerStats struct{}

type providerStatsReply struct {
	State    gobreaker.State
	InFlight int
}

// errClientGone marks a call the client abandoned: neither success nor failure.
var errClientGone = errors.New("client went away")

// providerActor guards one upstream with a two-step circuit breaker and a
// concurrency cap. It only grants and takes back slots: the HTTP call runs in
// the request's goroutine, so the mailbox never serializes traffic.
type providerActor struct {
	cfg      shlyuz.UpstreamConfig
	breaker  *gobreaker.TwoStepCircuitBreaker[struct{}]
	openedAt time.Time
	next     uint64
	slots    map[uint64]func(error)
	onState  func(name string, state gobreaker.State)
}

func newProviderActor(cfg shlyuz.UpstreamConfig, onState func(string, gobreaker.State)) *providerActor {
	p := &providerActor{cfg: cfg, slots: make(map[uint64]func(error)), onState: onState}
	p.breaker = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        cfg.Name,
		MaxRequests: cfg.Breaker.HalfOpenProbes,
		Timeout:     cfg.Breaker.OpenFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= cfg.Breaker.ConsecutiveFailures },
		IsExcluded: func(err error) bool {
			return errors.Is(err, errClientGone) || errors.Is(err, context.Canceled)
		},
		IsSuccessful: func(err error) bool {
			var e *shlyuz.Error
			if errors.As(err, &e) {
				return !e.UpstreamFault
			}
			return err == nil
		},
		OnStateChange: func(name string, from, to gobreaker.State) {
			if to == gobreaker.StateOpen {
				p.openedAt = time.Now()
			}
			if p.onState != nil {
				p.onState(name, to)
			}
		},
	})
	return p
}

func (p *providerActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *slotAcquire:
		ctx.Respond(p.acquire())
	case *slotRelease:
		if done, ok := p.slots[m.ID]; ok {
			delete(p.slots, m.ID)
			done(m.Err)
		}
	case *providerStats:
		ctx.Respond(&providerStatsReply{State: p.breaker.State(), InFlight: len(p.slots)})
	case *actor.Stopping:
		for id, done := range p.slots { // never leave a half-open breaker waiting
			done(errClientGone)
			delete(p.slots, id)
		}
	}
}

func (p *providerActor) acquire() *slotGranted {
	if len(p.slots) >= p.cfg.MaxConcurrent {
		return &slotGranted{Err: shlyuz.ErrOverloaded(time.Second,
			"The upstream %q is at its limit of %d concurrent requests; retry shortly.", p.cfg.Name, p.cfg.MaxConcurrent)}
	}
	done, err := p.breaker.Allow()
	if err != nil {
		wait := max(time.Second, p.cfg.Breaker.OpenFor-time.Since(p.openedAt))
		return &slotGranted{Err: shlyuz.ErrProviderUnavailable(wait.Round(time.Second),
			"The upstream %q is failing and is paused; retry later.", p.cfg.Name)}
	}
	p.next++
	p.slots[p.next] = done
	return &slotGranted{ID: p.next}
}
