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

// The pauses of a tripped breaker: a probe firstProbe after the trip,
// doubling after each failed probe up to open_for (1 s by default, so that
// an upstream back after any outage is probed within a second); a refused
// connection (a restart) keeps probing every firstProbe; a good probe closes it.
func TestBreakerProbesSoonAndBacksOff(t *testing.T) {
	sick := shlyuz.ErrUpstream("500")
	sick.UpstreamFault = true
	type step struct {
		outcome error
		pause   time.Duration // the pause after this probe's outcome; 0: closed
	}
	ms := time.Millisecond
	tests := []struct {
		name    string
		openFor time.Duration
		steps   []step
	}{
		{"default open_for", 0, []step{{sick, 500 * ms}, {sick, time.Second}, {sick, time.Second}, {sick, time.Second},
			{refusedErr(), 250 * ms}, {sick, 500 * ms}, {nil, 0}}},
		{"open_for 30s", 30 * time.Second, []step{{sick, 500 * ms}, {sick, time.Second}, {sick, 2 * time.Second}, {sick, 4 * time.Second},
			{sick, 8 * time.Second}, {sick, 16 * time.Second}, {sick, 30 * time.Second}, {sick, 30 * time.Second},
			{refusedErr(), 250 * ms}, {refusedErr(), 250 * ms}, {sick, 500 * ms}, {nil, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Unix(1_800_000_000, 0)
			cfg := shlyuz.UpstreamConfig{Name: "u", Breaker: shlyuz.BreakerConfig{ConsecutiveFailures: 2, OpenFor: tc.openFor}}.WithDefaults()
			b := newBreaker(cfg, "u", func() time.Time { return clock }, nil)
			pause := func() time.Duration { return b.until.Sub(clock) }
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
			if got := pause(); got != firstProbe {
				t.Fatalf("the trip paused %s, want %s", got, firstProbe)
			}
			for i, st := range tc.steps {
				if b.State() != gobreaker.StateOpen {
					t.Fatalf("step %d: %v, want open", i, b.State())
				}
				if err := call(nil); err == nil {
					t.Fatalf("step %d: a call went through an open breaker", i)
				}
				clock = clock.Add(pause())
				if err := call(st.outcome); err != nil {
					t.Fatalf("step %d: the probe was refused: %v", i, err)
				}
				if st.pause == 0 {
					if b.State() != gobreaker.StateClosed {
						t.Fatalf("step %d: %v after a good probe", i, b.State())
					}
					continue
				}
				if got := pause(); got != st.pause {
					t.Fatalf("step %d: paused %s, want %s", i, got, st.pause)
				}
			}
			for range 2 { // the first trip after closing again pauses firstProbe
				_ = call(sick)
			}
			if got := pause(); got != firstProbe {
				t.Fatalf("a new trip paused %s", got)
			}
		})
	}
}
