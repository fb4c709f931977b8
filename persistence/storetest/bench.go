package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// BenchCommitBatch is the journal's tick commit under load, for a store's
// BenchmarkCommitBatch: batches of 1 and of 200 charges (a c64 run commits
// a few hundred rows at a time) with their generation records, committed
// to a fresh store that open gives with the journal's context, one that is
// never done (modernc's SQLite starts no interrupt goroutine per statement
// then, nor does pgx arm a cancel). The time is reported per charge too.
func BenchCommitBatch(b *testing.B, open func(b *testing.B) shlyuz.Store) {
	ctx := context.Background()
	for _, n := range []int{1, 200} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := open(b)
			if err := s.CreateAccount(ctx, shlyuz.Account{ID: "acc-bench", Email: "b@example.com", CreatedAt: time.Now()}); err != nil {
				b.Fatal(err)
			}
			bal, err := s.ClaimBalance(ctx, "acc-bench")
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
				if _, err := s.Commit(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/charge")
		})
	}
}
