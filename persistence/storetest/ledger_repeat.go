package storetest

import (
	"fmt"
	"testing"

	"github.com/shlyuz/shlyuz"
)

// testCommitRepeatedIDs commits batches that hold one id more than once, at
// current, unfenced and stale epochs, new or already in the ledger. The
// entries are judged in the batch's order, so an entry whose id an earlier
// entry of the batch wrote is a duplicate, whatever its epoch; an entry whose
// id only fenced entries before it had is judged by its own epoch.
func testCommitRepeatedIDs(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	const stored = "x-stored" // in the ledger before the claims
	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("t1", "acct-1", 1000, 0), charge(stored, "acct-1", 0, 3, 0)}})
	for range 2 {
		if _, err := s.ClaimBalance(ctx, "acct-1"); err != nil {
			t.Fatalf("ClaimBalance: %v", err)
		}
	}
	bought := shlyuz.Credits(997)
	wantBalance(t, s, "acct-1", 0, bought, 2)

	tests := []struct {
		name   string
		stored bool    // the id is x-stored, in the ledger already
		epochs []int64 // of the entries with the id, in the batch's order; the account's is 2
		want   []string
	}{
		{"current, current", false, []int64{2, 2}, []string{"applied", "duplicate"}},
		{"current, stale", false, []int64{2, 1}, []string{"applied", "duplicate"}},
		{"unfenced, stale", false, []int64{0, 1}, []string{"applied", "duplicate"}},
		{"stale, current", false, []int64{1, 2}, []string{"fenced", "applied"}},
		{"stale, stale", false, []int64{1, 1}, []string{"fenced", "fenced"}},
		{"current, stale, current", false, []int64{2, 1, 2}, []string{"applied", "duplicate", "duplicate"}},
		{"stale, current, stale", false, []int64{1, 2, 1}, []string{"fenced", "applied", "duplicate"}},
		{"stored: current, stale", true, []int64{2, 1}, []string{"duplicate", "duplicate"}},
		{"stored: stale, current", true, []int64{1, 2}, []string{"duplicate", "duplicate"}},
	}
	for n, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := stored
			if !tc.stored {
				id = fmt.Sprintf("x-%d", n)
			}
			// Other entries around the repeated id, so that the batch is
			// more than the repeats.
			b := shlyuz.Batch{Entries: []shlyuz.LedgerEntry{charge(fmt.Sprintf("before-%d", n), "acct-1", 0, 1, 2)}}
			applied := []string{b.Entries[0].ID}
			var duplicate, fenced []string
			var written *shlyuz.LedgerEntry
			for k, epoch := range tc.epochs {
				e := charge(id, "acct-1", 0, shlyuz.Credits(10*(k+1)), epoch)
				b.Entries = append(b.Entries, e)
				switch tc.want[k] {
				case "applied":
					applied = append(applied, id)
					written = &e
				case "duplicate":
					duplicate = append(duplicate, id)
				case "fenced":
					fenced = append(fenced, id)
				}
			}
			after := charge(fmt.Sprintf("after-%d", n), "acct-1", 0, 1, 0)
			b.Entries = append(b.Entries, after)
			applied = append(applied, after.ID)

			wantResult(t, mustCommit(t, s, b), applied, duplicate, fenced)
			bought -= 2
			if written != nil {
				bought += written.BoughtDelta
				wantEntry(t, s, *written)
			}
			wantBalance(t, s, "acct-1", 0, bought, 2)
		})
	}
	wantEntry(t, s, charge(stored, "acct-1", 0, 3, 0))
	wantReconciled(t, s)
}
