package web

import (
	"sync"
	"time"
)

// throttle counts failed logins per key (an email, an address) in a window
// and refuses once a key has failed max times. In memory, per node.
type throttle struct {
	mu     sync.Mutex
	window time.Duration
	fails  map[string][]time.Time
}

func newThrottle(window time.Duration) *throttle {
	return &throttle{window: window, fails: map[string][]time.Time{}}
}

// blocked reports whether key has failed max times within the window, and when it may try again.
func (t *throttle) blocked(key string, max int, now time.Time) (bool, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.prune(key, now)
	if len(f) < max {
		return false, 0
	}
	return true, f[len(f)-max].Add(t.window).Sub(now)
}

func (t *throttle) fail(key string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fails[key] = append(t.prune(key, now), now)
}

func (t *throttle) reset(key string) {
	t.mu.Lock()
	delete(t.fails, key)
	t.mu.Unlock()
}

func (t *throttle) prune(key string, now time.Time) []time.Time {
	f := t.fails[key]
	i := 0
	for i < len(f) && now.Sub(f[i]) >= t.window {
		i++
	}
	f = f[i:]
	if len(f) == 0 {
		delete(t.fails, key)
		return nil
	}
	t.fails[key] = f
	return f
}
