package actors

import (
	"context"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// pooled is an adapter with a connection pool; it reports each drop.
type pooled struct {
	shlyuz.Provider
	dropped chan struct{}
}

func (p pooled) CloseIdleConnections() { p.dropped <- struct{}{} }

// When an upstream's breaker opens, the adapter's idle connections are
// dropped, so that the probe after the pause dials afresh.
func TestBreakerOpeningDropsIdleConnections(t *testing.T) {
	p := pooled{dropped: make(chan struct{}, 1)}
	cfg := shlyuz.UpstreamConfig{Name: "u", Breaker: shlyuz.BreakerConfig{ConsecutiveFailures: 2}}.WithDefaults()
	g := newGuard(cfg, p, nil, nil)
	for i := range 2 {
		select {
		case <-p.dropped:
			t.Fatalf("idle connections dropped after %d failures, before the breaker opened", i)
		default:
		}
		done, err := g.acquire("m")
		if err != nil {
			t.Fatal(err)
		}
		g.release(done, shlyuz.ErrUpstream("broke"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case <-p.dropped:
	case <-ctx.Done():
		t.Fatal("the breaker opened but the idle connections were not dropped")
	}
	if _, err := g.acquire("m"); err == nil || err.Status != 503 {
		t.Fatalf("acquire on an open breaker: %v, want 503", err)
	}
}
