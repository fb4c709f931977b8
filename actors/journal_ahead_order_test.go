package actors_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// A logged waiter hears Logged before the store's word on its entry, even
// while the writer is still telling the waiters appended before it: a commit
// does not take records whose waiters were not told Logged yet. Here the
// waiter before it starts a Flush when it hears Logged and gives it half a
// second; the later entry is a Duplicate, and must be heard as one after
// Logged (the account actor takes the first word as the answer).
func TestJournalWriteAheadLogTellsLoggedBeforeTheStoresWord(t *testing.T) {
	ctx := context.Background()
	store, b := journalStore(t)
	charge := func(id string) *shlyuz.LedgerEntry {
		return &shlyuz.LedgerEntry{ID: id, AccountID: "acc-1", Kind: shlyuz.EntryCharge, BoughtDelta: -3, Epoch: b.Epoch, CreatedAt: time.Now()}
	}
	dup := charge("chg-order-dup")
	if _, err := store.Commit(ctx, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{*dup}}); err != nil {
		t.Fatal(err)
	}
	j, log := gatedJournal(t, store)
	defer j.Close(ctx)

	go j.Add(charge("chg-order-0"), nil) // appends itself, nobody else writing; held
	<-log.entered                        // the next two are staged together, behind this write
	flushed := make(chan error, 1)
	j.AddNotify(charge("chg-order-1"), nil, true, func(o actors.Outcome) {
		if o != actors.Logged {
			return
		}
		go func() { flushed <- j.Flush(ctx) }()
		select { // a commit that may run now finishes well within this
		case err := <-flushed:
			flushed <- err
		case <-time.After(500 * time.Millisecond):
		}
	})
	var mu sync.Mutex
	var heard []actors.Outcome
	j.AddNotify(dup, nil, true, func(o actors.Outcome) {
		mu.Lock()
		heard = append(heard, o)
		mu.Unlock()
	})
	close(log.open)
	select {
	case err := <-flushed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the flush did not finish")
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []actors.Outcome{actors.Logged, actors.Duplicate}; !slices.Equal(heard, want) {
		t.Fatalf("the duplicate's waiter heard %v, want %v", heard, want)
	}
}
