package cockroach

import (
	"errors"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// TestOneTripUnknownAccount commits one-round-trip batches holding an entry
// of an account that does not exist, under a new id and under an id the
// ledger holds already (nothing is inserted for it, so no foreign key can
// refuse it): the whole batch fails, nothing of it is written, and the
// connection it failed on serves the next commit.
func TestOneTripUnknownAccount(t *testing.T) {
	s, wc := openCounted(t)
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	now := time.Now()
	topUp := func(id, account string, amount int64) shlyuz.LedgerEntry {
		return shlyuz.LedgerEntry{ID: id, AccountID: account, Kind: shlyuz.EntryTopUp, BoughtDelta: amount, CreatedAt: now}
	}
	if _, err := s.Commit(ctx, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("stored", "acct-1", 7)}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		ghost string // the id of the unknown account's entry
	}{
		{"new id", "t-ghost"},
		{"id in the ledger", "stored"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := shlyuz.Batch{
				Entries:     []shlyuz.LedgerEntry{topUp("t-"+tc.name, "acct-1", 100), topUp(tc.ghost, "ghost", 100)},
				Generations: []shlyuz.Generation{{ID: "gen-" + tc.name, AccountID: "acct-1", Model: "m/x", CreatedAt: now}},
			}
			if !oneTrip(b) {
				t.Fatal("the batch does not take one round trip")
			}
			dials := wc.dials.Load()
			res, err := s.Commit(ctx, b)
			if err == nil || !errors.Is(err, shlyuz.ErrNoRows) {
				t.Fatalf("Commit = %+v, %v; want an error wrapping ErrNoRows", res, err)
			}
			if _, err := s.Entry(ctx, "t-"+tc.name); !errors.Is(err, shlyuz.ErrNoRows) {
				t.Errorf("Entry of the failed batch: %v; want ErrNoRows", err)
			}
			if _, err := s.Generation(ctx, "gen-"+tc.name); !errors.Is(err, shlyuz.ErrNoRows) {
				t.Errorf("Generation of the failed batch: %v; want ErrNoRows", err)
			}
			if bal, err := s.Balance(ctx, "acct-1"); err != nil || bal.BoughtCredits != 7 {
				t.Errorf("Balance = %+v, %v; want bought 7", bal, err)
			}
			// The pool's only connection was rolled back, not dropped (pgx
			// prepares the failed batch's statements again, once).
			if _, err := s.Commit(ctx, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("after-"+tc.name, "acct-1", 0)}}); err != nil {
				t.Fatalf("Commit after the failure: %v", err)
			}
			if got := wc.dials.Load() - dials; got != 0 {
				t.Errorf("connections opened since the failure = %d; want 0", got)
			}
		})
	}
	if ids, err := s.Reconcile(ctx); err != nil || len(ids) != 0 {
		t.Errorf("Reconcile = %v, %v; want none", ids, err)
	}
}
