package actors

import (
	"context"
	"errors"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/sony/gobreaker/v2"
)

// errNotThisBreaker is the outcome a breaker is told of a call whose failure
// belongs to the other breaker of the slot: neither success nor failure.
var errNotThisBreaker = errors.New("counted by the other breaker")

// newBreaker is a two-step breaker with the upstream's settings: it trips
// after the configured run of upstream faults, ignores cancelled calls.
func newBreaker(cfg shlyuz.UpstreamConfig, name string, onState func(string, gobreaker.State, gobreaker.State)) *gobreaker.TwoStepCircuitBreaker[struct{}] {
	return gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        name,
		MaxRequests: cfg.Breaker.HalfOpenProbes,
		Timeout:     cfg.Breaker.OpenFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= cfg.Breaker.ConsecutiveFailures },
		IsExcluded: func(err error) bool {
			return errors.Is(err, errClientGone) || errors.Is(err, context.Canceled) || errors.Is(err, errNotThisBreaker)
		},
		IsSuccessful: func(err error) bool {
			var e *shlyuz.Error
			if errors.As(err, &e) {
				return !e.UpstreamFault
			}
			return err == nil
		},
		OnStateChange: onState,
	})
}

// modelBreaker is the upstream's breaker for one model, made on first use.
func (g *guard) modelBreaker(model string) *gobreaker.TwoStepCircuitBreaker[struct{}] {
	if b, ok := g.models.Load(model); ok {
		return b.(*gobreaker.TwoStepCircuitBreaker[struct{}])
	}
	b, _ := g.models.LoadOrStore(model, newBreaker(g.cfg, g.cfg.Name+"/"+model, nil))
	return b.(*gobreaker.TwoStepCircuitBreaker[struct{}])
}

// splitOutcome tells each breaker its share of a call's outcome: a fault of
// the model alone (ModelFault) counts at the model's breaker only; any other
// upstream fault at the upstream's only; a success at both.
func splitOutcome(upstreamDone, modelDone func(error)) func(error) {
	return func(outcome error) {
		var e *shlyuz.Error
		switch {
		case outcome == nil:
			upstreamDone(nil)
			modelDone(nil)
		case errors.As(outcome, &e) && e.UpstreamFault && e.ModelFault:
			upstreamDone(errNotThisBreaker)
			modelDone(outcome)
		default:
			upstreamDone(outcome)
			modelDone(errNotThisBreaker)
		}
	}
}
