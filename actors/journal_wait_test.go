package actors_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// countingStore records the size of every batch it commits.
type countingStore struct {
	shlyuz.Store
	mu      sync.Mutex
	batches []int
}

func (s *countingStore) Commit(ctx context.Context, b shlyuz.Batch) (shlyuz.CommitResult, error) {
	s.mu.Lock()
	s.batches = append(s.batches, len(b.Entries))
	s.mu.Unlock()
	return s.Store.Commit(ctx, b)
}

// Settlements nobody waits for start no commit of their own; the first
// waiter's commit carries them all, and each is told its outcome (one
// commit for many requests).
func TestJournalCommitsOnlyForWaiters(t *testing.T) {
	for _, tc := range []struct {
		name              string
		unwaited, waiters int
	}{
		{"one waiter after ten", 10, 1},
		{"one waiter alone", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			inner, b := journalStore(t)
			store := &countingStore{Store: inner}
			j := actors.NewJournal(store, time.Hour, quietLog, actors.JournalMetrics{})
			defer j.Close(ctx)
			told := make(chan actors.Outcome, tc.unwaited+tc.waiters)
			entry := func(i int) *shlyuz.LedgerEntry {
				return &shlyuz.LedgerEntry{ID: fmt.Sprintf("chg-%d", i), AccountID: "acc-1", Kind: shlyuz.EntryCharge,
					BoughtDelta: -1, Epoch: b.Epoch, CreatedAt: time.Now()}
			}
			for i := range tc.unwaited {
				j.AddNotify(entry(i), nil, false, func(o actors.Outcome) { told <- o })
			}
			store.mu.Lock()
			early := len(store.batches)
			store.mu.Unlock()
			j.AddNotify(entry(tc.unwaited), nil, true, func(o actors.Outcome) { told <- o })
			for range tc.unwaited + tc.waiters {
				if o := <-told; o != actors.Applied {
					t.Fatalf("outcome %v", o)
				}
			}
			store.mu.Lock()
			defer store.mu.Unlock()
			if early != 0 || len(store.batches) != 1 || store.batches[0] != tc.unwaited+tc.waiters {
				t.Fatalf("commits before the waiter %d, batches %v; want one of %d", early, store.batches, tc.unwaited+tc.waiters)
			}
		})
	}
}
