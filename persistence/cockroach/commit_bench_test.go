package cockroach

import (
	"fmt"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// BenchmarkCommitCharge is the journal's usual commit, a charge and its
// generation record, one at a time (concurrency 1): on PostgreSQL with the
// charge batches' asynchronous commit (the default, issue 20), and with
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
// SQLite store's benchmark of the same name: a batch of charges with their
// generation records, committed as PostgreSQL commits charge batches
// (asynchronously). The reported time is per charge.
func BenchmarkCommitBatch(b *testing.B) {
	for _, n := range []int{1, 200} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := openAt(b, freshSchema(b))
			mustAccount(b, s, "acc-bench")
			bal, err := s.ClaimBalance(b.Context(), "acc-bench")
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			batch := shlyuz.Batch{Entries: make([]shlyuz.LedgerEntry, n), Generations: make([]shlyuz.Generation, n)}
			b.ReportAllocs()
			for b.Loop() {
				now := time.Now()
				for k := range n {
					i++
					id := fmt.Sprintf("gen-%d", i)
					batch.Entries[k] = shlyuz.LedgerEntry{ID: "chg-" + id, AccountID: "acc-bench", KeyID: "key-1", Kind: shlyuz.EntryCharge,
						BoughtDelta: -3, Epoch: bal.Epoch, CreatedAt: now}
					batch.Generations[k] = shlyuz.Generation{ID: id, AccountID: "acc-bench", KeyID: "key-1", Model: "m/x", Upstream: "up",
						Attempts: []shlyuz.Attempt{{Upstream: "up", Status: 200}}, PromptTokens: 12, CompletionTokens: 9,
						Status: shlyuz.GenerationCompleted, FinishReason: "stop", Credits: 3, CreatedAt: now,
						CreditsDetails: &shlyuz.CreditsDetails{Input: 1, Output: 2}}
				}
				if _, err := s.Commit(b.Context(), batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/charge")
		})
	}
}
