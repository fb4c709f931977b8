package actors_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/persistence/aheadlog"
)

// busyLog is a real write-ahead log during each of whose appends another
// settlement arrives: the journal's writer always has something staged, as
// under a load that never pauses.
type busyLog struct {
	*aheadlog.Log
	j       *actors.Journal
	epoch   int64
	n       atomic.Int64
	stopped atomic.Bool // the test gave up: no more arrivals
}

func (l *busyLog) Append(recs []byte) error {
	if !l.stopped.Load() {
		i := l.n.Add(1)
		l.j.Add(&shlyuz.LedgerEntry{ID: fmt.Sprintf("chg-busy-%d", i), AccountID: "acc-1", Kind: shlyuz.EntryCharge,
			BoughtDelta: -1, Epoch: l.epoch, CreatedAt: time.Now()}, nil)
	}
	return l.Log.Append(recs)
}

// Close returns while settlements keep arriving: the write-ahead log's
// writer, which never runs dry under such a load, stops once the journal
// takes no more records for the log, so closing the log does not wait for
// it forever.
func TestJournalWriteAheadLogClosesUnderConstantLoad(t *testing.T) {
	ctx := context.Background()
	store, b := journalStore(t)
	l, err := aheadlog.Open(filepath.Join(t.TempDir(), "j.db-ahead"))
	if err != nil {
		t.Fatal(err)
	}
	j := actors.NewJournal(store, time.Hour, quietLog, actors.JournalMetrics{})
	log := &busyLog{Log: l, j: j, epoch: b.Epoch}
	defer log.stopped.Store(true)
	if err := j.Recover(ctx, log); err != nil {
		t.Fatal(err)
	}
	j.Add(&shlyuz.LedgerEntry{ID: "chg-busy-0", AccountID: "acc-1", Kind: shlyuz.EntryCharge,
		BoughtDelta: -1, Epoch: b.Epoch, CreatedAt: time.Now()}, nil)
	closed := make(chan error, 1)
	go func() { closed <- j.Close(ctx) }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Close did not return after %d appends under constant load", log.n.Load())
	}
	if _, err := store.Entry(ctx, "chg-busy-0"); err != nil {
		t.Fatalf("the record staged before Close was not committed: %v", err)
	}
}
