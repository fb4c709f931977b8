package actors

import (
	"context"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// loadVideoHolds counts the unsettled video jobs of the account as reserved:
// their holds outlive the process that took them. Their keys are not known
// yet: each key claims its jobs' holds when it loads (tagVideoHolds).
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

// tagVideoHolds gives the key being loaded its unsettled video jobs' holds,
// which the account loaded without their key, and counts them against its
// ceiling; a job settled in this activation since is no longer held.
func (a *accountActor) tagVideoHolds(ctx context.Context, k *keyLedger) error {
	jobs, err := a.deps.store.VideoKeyHolds(ctx, k.key.ID)
	if err != nil {
		return err
	}
	for id := range jobs {
		if h, ok := a.holds[id]; ok && h.keyID == "" {
			h.keyID = k.key.ID
			a.holds[id] = h
			k.reserved += h.amount
		}
	}
	return nil
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
	amount := min(m.Amount, h.amount) // the job's runner capped it at this hold already, loudly (videoRun)
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
	if !dup {
		k.roll(a, m.Now)
		k.spent += amount
	}
	return &acctVideoSettled{Charged: amount, Duplicate: dup}
}
