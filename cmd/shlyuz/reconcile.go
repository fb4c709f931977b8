package main

import (
	"context"
	"log/slog"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/metrics"
)

// reconcileEvery is how often the gateway checks every account's balance
// against the sum of its ledger entries for /metrics: the config's
// metrics.reconcile_interval, 10 minutes by default, never when negative.
func reconcileEvery(d time.Duration) time.Duration {
	if d == 0 {
		return 10 * time.Minute
	}
	return max(d, 0)
}

// startReconciling runs the reconciliation at once and then every interval,
// recording the accounts that disagree (shlyuz_reconcile_mismatched_accounts,
// which an alert watches); the returned func stops it.
func startReconciling(store shlyuz.Store, m *metrics.Metrics, every time.Duration, log *slog.Logger) func() {
	if every <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	run := func() {
		rctx, stop := context.WithTimeout(ctx, every)
		defer stop()
		bad, err := store.Reconcile(rctx)
		if err != nil {
			if ctx.Err() == nil {
				log.Error("reconcile: the check failed", "err", err)
			}
			return
		}
		if len(bad) > 0 {
			log.Error("reconcile: balances differ from their ledger entries", "accounts", bad)
		}
		m.Reconciled(len(bad), time.Now())
	}
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			run()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}
