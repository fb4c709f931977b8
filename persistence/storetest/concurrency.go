package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// testConcurrentCommits has 50 goroutines commit charges to one account at
// once. Every charge has its own id; some are submitted twice by their own
// goroutine and some by a second goroutine at the same time. Each id must be
// applied exactly once and the balance must be the sum of the unique entries.
func testConcurrentCommits(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	const (
		writers = 50
		initial = shlyuz.Credits(10_000_000)
	)
	mustAccount(t, s, "acct-1")
	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("top", "acct-1", initial, 0)}})
	claimed, err := s.ClaimBalance(ctx, "acct-1")
	if err != nil {
		t.Fatalf("ClaimBalance: %v", err)
	}
	entry := func(i int) shlyuz.LedgerEntry {
		return shlyuz.LedgerEntry{ID: fmt.Sprintf("conc-%02d", i), AccountID: "acct-1", KeyID: "key-1", Kind: shlyuz.EntryCharge,
			BoughtDelta: -shlyuz.Credits(7 * (i + 1)), Epoch: claimed.Epoch, CreatedAt: at(time.Duration(i) * time.Second)}
	}

	var (
		mu      sync.Mutex
		applied = map[string]int{}
		dups    int
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	commit := func(b shlyuz.Batch) {
		res, err := s.Commit(ctx, b)
		if err != nil {
			t.Errorf("Commit: %v", err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, id := range res.Applied {
			applied[id]++
		}
		dups += len(res.Duplicate)
		if len(res.Fenced) > 0 {
			t.Errorf("Commit fenced %v", res.Fenced)
		}
	}
	submitted := 0
	for i := range writers {
		b := shlyuz.Batch{Entries: []shlyuz.LedgerEntry{entry(i)}, Generations: []shlyuz.Generation{generation(fmt.Sprintf("gen-%02d", i), "acct-1")}}
		if i%7 == 3 { // also submit the next writer's entry, racing it
			b.Entries = append(b.Entries, entry((i+1)%writers))
		}
		again := i%5 == 0 // submit its own entry a second time
		submitted += len(b.Entries)
		if again {
			submitted++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			commit(b)
			if again {
				commit(shlyuz.Batch{Entries: b.Entries[:1]})
			}
		}()
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		return
	}

	var spent shlyuz.Credits
	for i := range writers {
		e := entry(i)
		spent -= e.BoughtDelta
		if n := applied[e.ID]; n != 1 {
			t.Errorf("%s applied %d times; want once", e.ID, n)
		}
	}
	if len(applied) != writers || dups != submitted-writers {
		t.Errorf("%d ids applied and %d duplicates of %d submitted; want %d and %d", len(applied), dups, submitted, writers, submitted-writers)
	}
	wantBalance(t, s, "acct-1", 0, initial-spent, claimed.Epoch)
	wantReconciled(t, s)
	if got, err := s.KeySpend(ctx, "key-1", time.Time{}); err != nil || got != spent {
		t.Errorf("KeySpend = %d, %v; want %d", got, err, spent)
	}
	for i := range writers {
		if _, err := s.Generation(ctx, fmt.Sprintf("gen-%02d", i)); err != nil {
			t.Errorf("Generation(gen-%02d): %v", i, err)
		}
	}
}
