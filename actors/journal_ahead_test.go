package actors_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/persistence/aheadlog"
)

// fullGeneration sets every field a generation record keeps.
func fullGeneration(id string) *shlyuz.Generation {
	return &shlyuz.Generation{ID: id, AccountID: "acc-1", KeyID: "key-1", Model: "m/x", Upstream: "up-a",
		Attempts:     []shlyuz.Attempt{{Upstream: "up-b", Status: 502, Error: "bad <gateway> & \"more\"\nline"}, {Upstream: "up-a", Status: 200}},
		Streamed:     true,
		PromptTokens: 1234, CompletionTokens: 56, Credits: 789, LatencyMS: 42,
		Status: shlyuz.GenerationCompleted, FinishReason: "length",
		CreatedAt: time.Date(2026, 11, 27, 14, 3, 4, 123456000, time.UTC), Estimated: true,
		PromptDetails:     &shlyuz.PromptTokensDetails{CachedTokens: 1000, CacheWriteTokens: 7, CacheWrite1hTokens: 3, AudioTokens: 2, ImageTokens: 1},
		CompletionDetails: &shlyuz.CompletionTokensDetails{ReasoningTokens: 20, AudioTokens: 4, ImageTokens: 5},
		CreditsDetails:    &shlyuz.CreditsDetails{Input: 100, CachedInput: 10, CacheWrite: 5, Output: 600, Reasoning: 60, AudioInput: 1, AudioOutput: 2, ImageInput: 3, ImageOutput: 4, Request: 8},
		OverReserved:      true}
}

// With a write-ahead log, a waited charge is durable once appended: its
// waiter hears Logged at once, before the store has it. A journal that was
// killed then (never flushed nor closed) leaves it in the log, and its
// successor's Recover commits it, the generation record whole; a log
// replayed twice (a crash between the commit and the log's drop) changes
// nothing more.
func TestJournalWriteAheadLogSurvivesKill(t *testing.T) {
	ctx := context.Background()
	store, b := journalStore(t)
	prefix := filepath.Join(t.TempDir(), "j.db-ahead")
	killed := loggedJournal(t, store, prefix)
	gen := fullGeneration("gen-1")
	entry := &shlyuz.LedgerEntry{ID: "chg-gen-1", AccountID: "acc-1", KeyID: "key-1", Kind: shlyuz.EntryCharge,
		PackageDelta: -89, BoughtDelta: -700, Epoch: b.Epoch, CreatedAt: gen.CreatedAt}
	heard := make(chan actors.Outcome, 4)
	killed.AddNotify(entry, gen, true, func(o actors.Outcome) { heard <- o })
	select {
	case o := <-heard:
		if o != actors.Logged {
			t.Fatalf("the waiter heard %v first, want Logged", o)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter heard nothing: the record was not appended")
	}
	if _, err := store.Entry(ctx, entry.ID); !errors.Is(err, shlyuz.ErrNoRows) {
		t.Fatalf("the store has the entry before any commit (%v): the log is not what made it durable", err)
	}
	segment, err := os.ReadFile(prefix + ".1")
	if err != nil {
		t.Fatal(err)
	}

	for round := range 2 { // the successor, then a successor of a successor killed before dropping
		if round == 1 {
			if err := os.WriteFile(prefix+".1", segment, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		j := loggedJournal(t, store, prefix)
		got, err := store.Generation(ctx, gen.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&got, gen) {
			t.Fatalf("round %d: recovered generation\n%+v\nwant\n%+v", round, got, *gen)
		}
		e, err := store.Entry(ctx, entry.ID)
		if err != nil || e.Amount() != -789 || e.KeyID != "key-1" || e.Epoch != b.Epoch {
			t.Fatalf("round %d: recovered entry %+v, %v", round, e, err)
		}
		bal, err := store.Balance(ctx, "acc-1")
		if err != nil || bal.PackageCredits != b.PackageCredits-89 || bal.BoughtCredits != b.BoughtCredits-700 {
			t.Fatalf("round %d: balance %+v (%v), want the charge once off %+v", round, bal, err, b)
		}
		if bad, err := store.Reconcile(ctx); err != nil || len(bad) != 0 {
			t.Fatalf("round %d: reconcile: %v %v", round, bad, err)
		}
		if err := j.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if left, _ := filepath.Glob(prefix + ".*"); len(left) != 0 {
			t.Fatalf("round %d: segments left after a clean close: %q", round, left)
		}
	}
}

// A logged waiter hears Logged at once and later, at the store's commit,
// that the entry was a Duplicate (an earlier activation had committed it):
// the account actor undoes its debit on that word.
func TestJournalWriteAheadLogTellsDuplicatesLater(t *testing.T) {
	ctx := context.Background()
	store, b := journalStore(t)
	entry := shlyuz.LedgerEntry{ID: "chg-gen-2", AccountID: "acc-1", Kind: shlyuz.EntryCharge, BoughtDelta: -5, Epoch: b.Epoch, CreatedAt: time.Now()}
	if _, err := store.Commit(ctx, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{entry}}); err != nil {
		t.Fatal(err)
	}
	j := loggedJournal(t, store, filepath.Join(t.TempDir(), "j.db-ahead"))
	defer j.Close(ctx)
	heard := make(chan actors.Outcome, 4)
	j.AddNotify(&entry, nil, true, func(o actors.Outcome) { heard <- o })
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	close(heard)
	var got []actors.Outcome
	for o := range heard {
		got = append(got, o)
	}
	if !reflect.DeepEqual(got, []actors.Outcome{actors.Logged, actors.Duplicate}) {
		t.Fatalf("heard %v, want [Logged Duplicate]", got)
	}
}

// loggedJournal is a journal on the store whose write-ahead log is at prefix,
// after it committed what the log held.
func loggedJournal(t *testing.T, store shlyuz.Store, prefix string) *actors.Journal {
	t.Helper()
	l, err := aheadlog.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	j := actors.NewJournal(store, time.Hour, quietLog, actors.JournalMetrics{})
	if err := j.Recover(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	return j
}

// gatedLog is a real write-ahead log whose first append waits for the
// test's word, and which counts the records each append carried.
type gatedLog struct {
	*aheadlog.Log
	entered, open chan struct{}
	mu            sync.Mutex
	appends       []int // records per append
}

func (l *gatedLog) Append(recs []byte) error {
	l.mu.Lock()
	first := len(l.appends) == 0
	l.appends = append(l.appends, bytes.Count(recs, []byte("\n")))
	l.mu.Unlock()
	if first {
		close(l.entered)
		<-l.open
	}
	return l.Log.Append(recs)
}

// gatedJournal is a journal on the store whose write-ahead log's first
// append waits for close(log.open).
func gatedJournal(t *testing.T, store shlyuz.Store) (*actors.Journal, *gatedLog) {
	t.Helper()
	l, err := aheadlog.Open(filepath.Join(t.TempDir(), "j.db-ahead"))
	if err != nil {
		t.Fatal(err)
	}
	log := &gatedLog{Log: l, entered: make(chan struct{}), open: make(chan struct{})}
	j := actors.NewJournal(store, time.Hour, quietLog, actors.JournalMetrics{})
	if err := j.Recover(context.Background(), log); err != nil {
		t.Fatal(err)
	}
	return j, log
}

// Settlements staged while the log is being written go out together in its
// next write (one system call for many charges), each waiter hears Logged
// once its record is appended and not before, and the store's commit then
// has every charge once.
func TestJournalWriteAheadLogAppendsWhatArrivedMeanwhileAtOnce(t *testing.T) {
	ctx := context.Background()
	store, b := journalStore(t)
	j, log := gatedJournal(t, store)
	defer j.Close(ctx)
	const n = 20
	heard := make(chan string, n)
	entry := func(i int) *shlyuz.LedgerEntry {
		return &shlyuz.LedgerEntry{ID: fmt.Sprintf("chg-gen-%d", i), AccountID: "acc-1", Kind: shlyuz.EntryCharge,
			BoughtDelta: -int64(i + 1), Epoch: b.Epoch, CreatedAt: time.Now()}
	}
	add := func(i int) {
		e := entry(i)
		j.AddNotify(e, nil, true, func(o actors.Outcome) {
			if o == actors.Logged {
				heard <- e.ID
			}
		})
	}
	go add(0)     // appends itself, as nobody else writes; its append is held
	<-log.entered // the first record's append is under way, and held
	opened := false
	defer func() {
		if !opened {
			close(log.open)
		}
	}()
	for i := 1; i < n; i++ {
		add(i)
	}
	select {
	case id := <-heard:
		t.Fatalf("%s heard Logged before any append returned", id)
	default:
	}
	close(log.open)
	opened = true
	got := map[string]bool{}
	for range n {
		select {
		case id := <-heard:
			got[id] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d waiters heard Logged", len(got), n)
		}
	}
	log.mu.Lock()
	appends := slices.Clone(log.appends)
	log.mu.Unlock()
	if !slices.Equal(appends, []int{1, n - 1}) {
		t.Fatalf("records per append %v, want [1 %d]: what arrived during the first write goes out in one", appends, n-1)
	}
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var want int64
	for i := range n {
		want += int64(i + 1)
		if _, err := store.Entry(ctx, entry(i).ID); err != nil {
			t.Fatalf("entry %d not committed: %v", i, err)
		}
	}
	bal, err := store.Balance(ctx, "acc-1")
	if err != nil || bal.BoughtCredits != b.BoughtCredits-want {
		t.Fatalf("balance %+v (%v), want %d off %d", bal, err, want, b.BoughtCredits)
	}
}

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

// With the write-ahead log a generation record is readable by id (Pending)
// from its settlement until the store's commit has it, and no longer after.
func TestJournalWriteAheadLogKeepsGenerationsPendingUntilCommitted(t *testing.T) {
	ctx := context.Background()
	store, b := journalStore(t)
	j := loggedJournal(t, store, filepath.Join(t.TempDir(), "j.db-ahead"))
	defer j.Close(ctx)
	gen := fullGeneration("gen-pending-ahead")
	entry := &shlyuz.LedgerEntry{ID: "chg-" + gen.ID, AccountID: "acc-1", Kind: shlyuz.EntryCharge,
		BoughtDelta: -5, Epoch: b.Epoch, CreatedAt: gen.CreatedAt}
	heard := make(chan actors.Outcome, 4)
	j.AddNotify(entry, gen, true, func(o actors.Outcome) { heard <- o })
	if g, ok := j.Pending(gen.ID); !ok || g.Credits != gen.Credits {
		t.Fatalf("Pending right after the settlement: %+v %v, want the record", g, ok)
	}
	select {
	case o := <-heard:
		if o != actors.Logged {
			t.Fatalf("heard %v, want Logged", o)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the record was never appended")
	}
	if _, ok := j.Pending(gen.ID); !ok {
		t.Fatal("the record is not pending once appended, before any commit")
	}
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := j.Pending(gen.ID); ok {
		t.Fatal("the record is still pending after the commit")
	}
	if _, err := store.Generation(ctx, gen.ID); err != nil {
		t.Fatalf("the store has no record after the commit: %v", err)
	}
}
