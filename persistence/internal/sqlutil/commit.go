package sqlutil

import (
	"errors"
	"fmt"
	"sort"

	"github.com/shlyuz/shlyuz"
)

// Outcome is what a commit does with one entry of its batch.
type Outcome uint8

// The outcomes of an entry. Insert is provisional: the entry becomes Applied
// when its insert adds a row and Duplicate when its id was already there.
const (
	Insert Outcome = iota
	Applied
	Duplicate
	Fenced
)

// CheckBatch refuses a batch no store may write: an entry or a generation
// without an id, or an entry without an account.
func CheckBatch(b shlyuz.Batch) error {
	for i := range b.Entries {
		e := &b.Entries[i]
		if e.ID == "" {
			return errors.New("commit: ledger entry without an id")
		}
		if e.AccountID == "" {
			return fmt.Errorf("commit: ledger entry %s has no account", e.ID)
		}
	}
	for i := range b.Generations {
		if b.Generations[i].ID == "" {
			return errors.New("commit: generation without an id")
		}
	}
	return nil
}

// AccountsOf lists the distinct accounts of the entries, sorted, which is the
// order a commit locks their balances in.
func AccountsOf(entries []shlyuz.LedgerEntry) []string {
	seen := map[string]bool{}
	var out []string
	for i := range entries {
		if id := entries[i].AccountID; !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// IsFenced reports whether an entry written at entryEpoch is refused by an
// account whose epoch is current: 0 is unfenced, older epochs are stale.
func IsFenced(entryEpoch, current int64) bool {
	return entryEpoch != 0 && entryEpoch < current
}

// Judge gives each entry Insert or Fenced from its account's current epoch.
// An account missing from epochs does not exist: the whole batch fails.
func Judge(entries []shlyuz.LedgerEntry, epochs map[string]int64) ([]Outcome, error) {
	out := make([]Outcome, len(entries))
	for i := range entries {
		e := &entries[i]
		current, ok := epochs[e.AccountID]
		if !ok {
			return nil, fmt.Errorf("commit: entry %s: account %s: %w", e.ID, e.AccountID, shlyuz.ErrNoRows)
		}
		if IsFenced(e.Epoch, current) {
			out[i] = Fenced
		}
	}
	return out, nil
}

// IDsWith lists the ids of the entries whose outcome is o.
func IDsWith(entries []shlyuz.LedgerEntry, outcomes []Outcome, o Outcome) []string {
	var ids []string
	for i := range entries {
		if outcomes[i] == o {
			ids = append(ids, entries[i].ID)
		}
	}
	return ids
}

// MarkExisting marks Duplicate the entries, to insert or fenced, whose id
// exists: the row is there already, or the fenced entry is a replay.
func MarkExisting(entries []shlyuz.LedgerEntry, outcomes []Outcome, existing map[string]bool) {
	for i := range entries {
		if (outcomes[i] == Insert || outcomes[i] == Fenced) && existing[entries[i].ID] {
			outcomes[i] = Duplicate
		}
	}
}

// Delta is what a commit adds to one balance row.
type Delta struct {
	AccountID string
	Package   shlyuz.Credits
	Bought    shlyuz.Credits
	ExpiresAt int64 // unix microseconds; 0 leaves package_expires_at as it is
}

// Result gathers the outcomes into the commit's result and the balance deltas
// of the applied entries, by account in sorted order. An applied entry with a
// package expiry sets it; the last such entry of the batch wins.
func Result(entries []shlyuz.LedgerEntry, outcomes []Outcome) (shlyuz.CommitResult, []Delta) {
	var res shlyuz.CommitResult
	byAccount := map[string]*Delta{}
	for i := range entries {
		e := &entries[i]
		switch outcomes[i] {
		case Applied:
			res.Applied = append(res.Applied, e.ID)
			d := byAccount[e.AccountID]
			if d == nil {
				d = &Delta{AccountID: e.AccountID}
				byAccount[e.AccountID] = d
			}
			d.Package += e.PackageDelta
			d.Bought += e.BoughtDelta
			if us := Micros(e.PackageExpiresAt); us != 0 {
				d.ExpiresAt = us
			}
		case Duplicate:
			res.Duplicate = append(res.Duplicate, e.ID)
		case Fenced:
			res.Fenced = append(res.Fenced, e.ID)
		}
	}
	deltas := make([]Delta, 0, len(byAccount))
	for _, d := range byAccount {
		if d.Package != 0 || d.Bought != 0 || d.ExpiresAt != 0 {
			deltas = append(deltas, *d)
		}
	}
	sort.Slice(deltas, func(i, j int) bool { return deltas[i].AccountID < deltas[j].AccountID })
	return res, deltas
}
