package actors

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/sony/gobreaker/v2"
)

// refusedErr is what an adapter returns when nothing listens at the upstream.
func refusedErr() error {
	e := shlyuz.ErrUpstream("cannot be reached")
	e.UpstreamFault = true
	e.Cause = fmt.Errorf("dial: %w", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
	return e
}

// The pauses of a tripped breaker: a probe a second after the trip, doubling
// after each failed probe up to open_for; a refused connection (a restart)
// keeps probing every second; a good probe closes it.
func TestBreakerProbesSoonAndBacksOff(t *testing.T) {
	sick := shlyuz.ErrUpstream("500")
	sick.UpstreamFault = true
	clock := time.Unix(1_800_000_000, 0)
	cfg := shlyuz.UpstreamConfig{Name: "u", Breaker: shlyuz.BreakerConfig{ConsecutiveFailures: 2, OpenFor: 30 * time.Second}}.WithDefaults()
	b := newBreaker(cfg, "u", nil)
	b.now = func() time.Time { return clock }
	call := func(outcome error) error {
		done, err := b.Allow()
		if err != nil {
			return err
		}
		done(outcome)
		return nil
	}
	for range 2 {
		if err := call(sick); err != nil {
			t.Fatal(err)
		}
	}
	for i, step := range []struct {
		outcome error
		pause   time.Duration // the pause after this probe's outcome; 0: closed
	}{
		{sick, 2 * time.Second},
		{sick, 4 * time.Second},
		{sick, 8 * time.Second},
		{sick, 16 * time.Second},
		{sick, 30 * time.Second},
		{sick, 30 * time.Second},
		{refusedErr(), time.Second},
		{refusedErr(), time.Second},
		{sick, 2 * time.Second},
		{nil, 0},
	} {
		if b.State() != gobreaker.StateOpen {
			t.Fatalf("step %d: %v, want open", i, b.State())
		}
		if err := call(nil); err == nil {
			t.Fatalf("step %d: a call went through an open breaker", i)
		}
		clock = clock.Add(b.RetryIn())
		if err := call(step.outcome); err != nil {
			t.Fatalf("step %d: the probe was refused: %v", i, err)
		}
		if step.pause == 0 {
			if b.State() != gobreaker.StateClosed {
				t.Fatalf("step %d: %v after a good probe", i, b.State())
			}
			continue
		}
		if got := b.RetryIn(); got != step.pause {
			t.Fatalf("step %d: paused %s, want %s", i, got, step.pause)
		}
	}
	// The first trip after closing again pauses a second.
	for range 2 {
		_ = call(sick)
	}
	if got := b.RetryIn(); got != time.Second {
		t.Fatalf("a new trip paused %s", got)
	}
}
