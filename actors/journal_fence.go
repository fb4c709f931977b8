package actors

import (
	"slices"
	"sync"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Outcome is what became of an entry a waiter was told about.
type Outcome int

const (
	// Applied: committed by this commit (or no entry: the batch is committed).
	Applied Outcome = iota
	// Duplicate: an entry of that id was committed before (by an earlier
	// activation); this one changed nothing.
	Duplicate
	// Fenced: refused, another activation owns the account now.
	Fenced
	// Logged: in the write-ahead log, durable; the store's word (Applied,
	// or a Duplicate or Fenced told later) comes with its commit.
	Logged
)

// notice is a waiter for the commit of one entry (or of a batch without one).
// A logged waiter was told Logged already: it hears of the commit only when
// the store did not apply the entry.
type notice struct {
	entryID string
	done    func(Outcome)
	logged  bool
}

func notifyAll(ns []notice) {
	for _, n := range ns {
		if !n.logged {
			n.done(Applied)
		}
	}
}

// notifyResult tells each waiter what became of its entry.
func notifyResult(ns []notice, res shlyuz.CommitResult) {
	for _, n := range ns {
		switch {
		case n.entryID == "":
			if !n.logged {
				n.done(Applied)
			}
		case slices.Contains(res.Fenced, n.entryID):
			n.done(Fenced)
		case slices.Contains(res.Duplicate, n.entryID):
			n.done(Duplicate)
		case !n.logged:
			n.done(Applied)
		}
	}
}

// fenceBook remembers what the store refused: the highest refused epoch of
// each account (its activation at that epoch must stop granting at once) and
// the refused charges, which reconciliation reports until the process ends.
type fenceBook struct {
	mu      sync.Mutex
	epochs  map[string]int64
	refused []string
}

// maxRefused bounds the remembered ids; the count goes on.
const maxRefused = 1000

func (f *fenceBook) record(entries []shlyuz.LedgerEntry, fenced []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.epochs == nil {
		f.epochs = make(map[string]int64)
	}
	for i := range entries {
		e := &entries[i]
		if !slices.Contains(fenced, e.ID) {
			continue
		}
		f.epochs[e.AccountID] = max(f.epochs[e.AccountID], e.Epoch)
		if e.Kind == shlyuz.EntryCharge && len(f.refused) < maxRefused {
			f.refused = append(f.refused, e.ID)
		}
	}
}

// Fenced says whether the store refused an entry of the account at epoch or later.
func (j *Journal) Fenced(accountID string, epoch int64) bool {
	j.fence.mu.Lock()
	defer j.fence.mu.Unlock()
	e, ok := j.fence.epochs[accountID]
	return ok && e >= epoch
}

// RefusedCharges are the charges the store refused (fenced) since this
// process started: credits served but never debited.
func (j *Journal) RefusedCharges() []string {
	j.fence.mu.Lock()
	defer j.fence.mu.Unlock()
	return slices.Clone(j.fence.refused)
}
