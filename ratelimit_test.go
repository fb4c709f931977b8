package shlyuz

import (
	"testing"
	"time"
)

func TestRateWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 30, 0, time.UTC)
	type step struct {
		at        time.Duration // after t0
		spend     int64         // tokens spent before the request
		ok        bool
		remaining int64
		retry     time.Duration
	}
	cases := []struct {
		name  string
		limit RateLimit
		steps []step
	}{
		{"requests", RateLimit{RequestsPerMinute: 2}, []step{
			{0, 0, true, 1, 0}, {time.Second, 0, true, 0, 0}, {2 * time.Second, 0, false, 0, 58 * time.Second},
			{time.Minute, 0, true, 1, 0}, // the window is a minute from its first request
		}},
		{"tokens", RateLimit{TokensPerMinute: 100}, []step{
			{0, 0, true, 100, 0}, {time.Second, 99, true, 1, 0}, {2 * time.Second, 1, false, 0, 58 * time.Second},
			{61 * time.Second, 0, true, 100, 0},
		}},
		{"both", RateLimit{RequestsPerMinute: 5, TokensPerMinute: 10}, []step{
			{0, 0, true, 4, 0}, {time.Second, 10, false, 4, 59 * time.Second},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var w RateWindow
			for i, s := range tc.steps {
				now := t0.Add(s.at)
				w.Hold(s.spend, now)
				st, ok := w.Admit(tc.limit, now)
				if ok != s.ok || st.Remaining != s.remaining || st.RetryAfter != s.retry {
					t.Fatalf("step %d: ok %v remaining %d retry %s, want %v %d %s", i, ok, st.Remaining, st.RetryAfter, s.ok, s.remaining, s.retry)
				}
			}
		})
	}
}

func TestRateWindowHoldsTheEstimateUntilSettled(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 30, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		held, used  int64
		settleAfter time.Duration
		want        int64 // tokens in the window after the settlement
	}{
		{"used less than held", 50, 20, time.Second, 20},
		{"used more than held", 50, 70, time.Second, 70},
		{"failed: nothing used", 50, 0, time.Second, 0},
		{"settled in the next window", 50, 20, 61 * time.Second, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w RateWindow
			in := w.Hold(tc.held, t0)
			if w.Tokens != tc.held {
				t.Fatalf("held %d, window %d", tc.held, w.Tokens)
			}
			w.Settle(tc.held, in, tc.used, t0.Add(tc.settleAfter))
			if w.Tokens != tc.want {
				t.Fatalf("window %d, want %d", w.Tokens, tc.want)
			}
		})
	}
}
