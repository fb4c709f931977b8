package actors

import (
	"context"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// loadVideoHolds counts the unsettled video jobs of the account as reserved:
// their holds outlive the process that took them. Their keys' parts are
// loaded with each key (keyOf).
func (a *accountActor) loadVideoHolds(ctx context.Context) error {
	holds, err := a.deps.store.VideoHolds(ctx, a.balance.AccountID)
	if err != nil {
		return err
	}
	for id, c := range holds {
		a.addHold(id, hold{amount: c})
	}
	return nil
}

// addHolds adds loaded holds to an actor's holds and their sum to its reserved credits.
func addHolds(into map[string]shlyuz.Credits, reserved *shlyuz.Credits) func(map[string]shlyuz.Credits, error) error {
	return func(holds map[string]shlyuz.Credits, err error) error {
		if err != nil {
			return err
		}
		for id, c := range holds {
			into[id] = c
			*reserved += c
		}
		return nil
	}
}

// settleVideo commits a video job's charge before it answers, once per job:
// an entry already in the store (from before a restart) is not applied again.
func (a *accountActor) settleVideo(m *acctSettleVideo) *acctVideoSettled {
	if a.loadErr != nil {
		return &acctVideoSettled{Err: a.loadErr}
	}
	h, ok := a.holds[m.GenID]
	if !ok { // settled already in this activation
		return &acctVideoSettled{Duplicate: true}
	}
	// The key loads (its spend, this job's hold) before the charge is
	// committed, so that the charge is counted in its spend once.
	k, kerr := a.keyOf(m.KeyID)
	if kerr != nil {
		return &acctVideoSettled{Err: kerr}
	}
	amount := min(m.Amount, h.amount)
	b := shlyuz.Batch{}
	var entry *shlyuz.LedgerEntry
	if amount > 0 {
		pkg, bought := a.balance.Split(amount, m.Now)
		entry = &shlyuz.LedgerEntry{
			ID: "chg-" + m.GenID, AccountID: a.balance.AccountID, KeyID: m.KeyID, Kind: shlyuz.EntryCharge,
			PackageDelta: pkg, BoughtDelta: bought, Epoch: a.balance.Epoch, CreatedAt: m.Now,
		}
		b.Entries = append(b.Entries, *entry)
	}
	if m.Generation != nil {
		b.Generations = append(b.Generations, *m.Generation)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := a.deps.store.Commit(ctx, b)
	if err != nil {
		return &acctVideoSettled{Err: shlyuz.ErrInternal(err)} // the hold stays; the job retries
	}
	dup := false
	switch {
	case entry == nil:
	case len(res.Applied) == 1:
		a.balance.Apply(entry)
	case len(res.Duplicate) == 1:
		dup = true
	default:
		a.loadErr = shlyuz.ErrInternal(nil) // fenced: another activation owns the account now
		return &acctVideoSettled{Err: shlyuz.ErrConflict("account_moved", "The account is being served elsewhere; retry.")}
	}
	a.dropHold(m.GenID)
	k.drop(m.GenID)
	if !dup {
		k.roll(a, m.Now)
		k.spent += amount
	}
	return &acctVideoSettled{Charged: amount, Duplicate: dup}
}
