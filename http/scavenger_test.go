package http

import (
	"testing"
	"time"

	"github.com/shlyuz/shlyuz/http/internal/api"
)

// TestScavengerWaitsForTheBurstToEnd: memory is handed back once, when no
// large body came for scavengeAfter, however long the burst before it.
func TestScavengerWaitsForTheBurstToEnd(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	var timers []time.Duration // the waits asked for, in order
	var fire func()
	freed := 0
	sc := &api.Scavenger{
		Now:   func() time.Time { return now },
		After: func(d time.Duration, f func()) { timers, fire = append(timers, d), f },
		Free:  func() { freed++ },
	}
	sc.Soon() // the burst begins
	now = now.Add(time.Second)
	sc.Soon() // a second body while the first wait runs: no new timer
	if len(timers) != 1 || timers[0] != 2*time.Second {
		t.Fatalf("timers %v, want [2s]", timers)
	}
	now = now.Add(time.Second)
	fire() // 2 s after the first body, 1 s after the last: wait 1 s more
	if freed != 0 || len(timers) != 2 || timers[1] != time.Second {
		t.Fatalf("freed %d, timers %v; want 0 and [2s 1s]", freed, timers)
	}
	now = now.Add(time.Second)
	fire() // 2 s of quiet: released, once
	if freed != 1 || len(timers) != 2 {
		t.Fatalf("freed %d, timers %v; want 1 and no new timer", freed, timers)
	}
	sc.Soon() // a new burst arms a new wait
	if len(timers) != 3 || timers[2] != 2*time.Second {
		t.Fatalf("timers %v, want a third of 2s", timers)
	}
}
