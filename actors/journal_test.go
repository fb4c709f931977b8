package actors_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/persistence/sqlite"
)

// The journal commits what it was given, in groups, and everything on Close;
// a generation is readable before its commit.
func TestJournalGroupCommitsAndFlushesOnClose(t *testing.T) {
	ctx := context.Background()
	store, b := journalStore(t)
	var mu sync.Mutex
	batches := 0
	j := actors.NewJournal(store, time.Hour, quietLog, actors.JournalMetrics{
		BatchSize: func(int) { mu.Lock(); batches++; mu.Unlock() },
	})
	const n = 200
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("gen-%d", i)
			j.Add(&shlyuz.LedgerEntry{ID: "chg-" + id, AccountID: "acc-1", Kind: shlyuz.EntryCharge, BoughtDelta: -3, Epoch: b.Epoch, CreatedAt: time.Now()},
				&shlyuz.Generation{ID: id, AccountID: "acc-1", Model: "m/x", Status: shlyuz.GenerationCompleted, Credits: 3, CreatedAt: time.Now()})
		}(i)
	}
	wg.Wait()
	if g, ok := j.Pending("gen-7"); !ok || g.Credits != 3 {
		t.Fatalf("pending generation: %v %+v", ok, g)
	}
	if _, err := store.Generation(ctx, "gen-7"); err == nil {
		t.Fatal("committed before the interval or Close")
	}
	if err := j.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := store.Balance(ctx, "acc-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.BoughtCredits != -3*n || batches != 1 {
		t.Fatalf("balance %d after %d batches, want %d in 1", got.BoughtCredits, batches, -3*n)
	}
	if _, ok := j.Pending("gen-7"); ok {
		t.Fatal("a committed generation is still pending")
	}
	if bad, err := store.Reconcile(ctx); err != nil || len(bad) != 0 {
		t.Fatalf("reconcile: %v %v", bad, err)
	}
}

// quietLog is the log of a journal under test: it says nothing.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// journalStore opens a fresh SQLite store, closed when the test ends, with
// one account, acc-1, whose balance it has claimed for a journal to write.
func journalStore(t *testing.T) (*sqlite.Store, shlyuz.Balance) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.CreateAccount(ctx, shlyuz.Account{ID: "acc-1", Email: "j@example.com", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	b, err := store.ClaimBalance(ctx, "acc-1")
	if err != nil {
		t.Fatal(err)
	}
	return store, b
}
