package cockroach

import (
	"fmt"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/storetest"
)

// BenchmarkCommitCharge is the journal's usual commit, a charge and its
// generation record, one at a time (concurrency 1): on PostgreSQL with the
// charge batches' asynchronous commit (the default), and with
// every commit synchronous, which waits for the server's WAL flush.
func BenchmarkCommitCharge(b *testing.B) {
	for _, tc := range []struct {
		name    string
		syncAll bool
	}{{"async", false}, {"sync", true}} {
		b.Run(tc.name, func(b *testing.B) {
			s := openAt(b, freshSchema(b))
			s.syncAll = tc.syncAll
			mustAccount(b, s, "acc-bench")
			bal, err := s.ClaimBalance(b.Context(), "acc-bench")
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				i++
				id := fmt.Sprintf("gen-%d", i)
				now := time.Now()
				_, err := s.Commit(b.Context(), shlyuz.Batch{
					Entries: []shlyuz.LedgerEntry{{ID: "chg-" + id, AccountID: "acc-bench", Kind: shlyuz.EntryCharge,
						BoughtDelta: -3, Epoch: bal.Epoch, CreatedAt: now}},
					Generations: []shlyuz.Generation{{ID: id, AccountID: "acc-bench", Model: "m/x", Status: shlyuz.GenerationCompleted,
						Credits: 3, CreatedAt: now}}})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCommitBatch is the journal's tick commit under load, as in the
// SQLite store's benchmark of the same name (storetest.BenchCommitBatch),
// committed as PostgreSQL commits charge batches (asynchronously).
func BenchmarkCommitBatch(b *testing.B) {
	storetest.BenchCommitBatch(b, func(b *testing.B) shlyuz.Store { return openAt(b, freshSchema(b)) })
}
