package actors

import (
	"slices"
	"sync"

	shlyuz "github.com/shlyuz/shlyuz"
)

// ErrChargeRefused is what a durable settlement's waiter gets when the store
// refused its charge: another activation owns the account now.
var ErrChargeRefused = shlyuz.ErrChargeNotCommitted()

// notice is a waiter for the commit of one entry (or of a batch without one).
type notice struct {
	entryID string
	done    func(error)
}

func notifyAll(ns []notice, err error) {
	for _, n := range ns {
		n.done(err)
	}
}

// notifyFenced tells each waiter whether its entry was refused.
func notifyFenced(ns []notice, fenced []string) {
	for _, n := range ns {
		if n.entryID != "" && slices.Contains(fenced, n.entryID) {
			n.done(ErrChargeRefused)
		} else {
			n.done(nil)
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
