package actors

import (
	"context"
	"errors"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// keyLedger is one API key's state inside its account's activation: the
// ceiling of the current period, the spend in it, the holds of its calls in
// flight and its rate window. Keeping it there makes the account's claim
// fence the key too: only the activation that owns the account grants
// against the key, and a new owner rebuilds the key's holds with the
// account's.
type keyLedger struct {
	key         shlyuz.Key
	periodStart time.Time
	periodEnd   time.Time
	spent       shlyuz.Credits    // settled in the current period
	reserved    shlyuz.Credits    // the sum of the account's holds of this key's calls
	rate        shlyuz.RateWindow // requests and tokens of the current minute (Key.RateLimit)
	version     int64             // counts the operator's changes (revoked, new ceiling): a slice granted before one is stale
}

// keyOf is the account's key by id, loaded on first use: its spend read
// from the store after the account's claim counts every charge committed at
// an older epoch, and nothing of an older epoch can be committed since.
func (a *accountActor) keyOf(id string) (*keyLedger, *shlyuz.Error) {
	if k, ok := a.keys[id]; ok {
		return k, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	key, err := a.deps.store.Key(ctx, id)
	if errors.Is(err, shlyuz.ErrNoRows) || (err == nil && key.AccountID != a.balance.AccountID) {
		return nil, shlyuz.ErrInvalidKey()
	}
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	now := a.deps.now()
	k := &keyLedger{key: key,
		periodStart: shlyuz.PeriodStart(now, key.LimitReset, a.deps.loc),
		periodEnd:   shlyuz.PeriodEnd(now, key.LimitReset, a.deps.loc)}
	if k.spent, err = a.deps.store.KeySpend(ctx, key.ID, k.periodStart); err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	if err := a.tagVideoHolds(ctx, k); err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	a.keys[id] = k
	return k, nil
}

// roll starts a new period when now has left the current one.
func (k *keyLedger) roll(a *accountActor, now time.Time) {
	if k.periodEnd.IsZero() || now.Before(k.periodEnd) {
		return
	}
	k.periodStart = shlyuz.PeriodStart(now, k.key.LimitReset, a.deps.loc)
	k.periodEnd = shlyuz.PeriodEnd(now, k.key.LimitReset, a.deps.loc)
	k.spent = 0
}

// left is what the key's ceiling still allows (ok false: no ceiling).
func (k *keyLedger) left() (shlyuz.Credits, bool) {
	if k.key.Limit == nil {
		return 0, false
	}
	return *k.key.Limit - k.spent - k.reserved, true
}

// check answers a keyCheck: the key's state, or why it cannot be used.
func (a *accountActor) check(m *keyCheck) *keyState {
	if a.loadErr != nil {
		return &keyState{Err: a.loadErr}
	}
	k, err := a.keyOf(m.KeyID)
	if err != nil {
		return &keyState{Err: err}
	}
	k.roll(a, m.Now)
	return &keyState{Key: k.key, Spent: k.spent, Reserved: k.reserved, Err: k.key.Usable(m.Now), ResetsAt: k.periodEnd}
}

// revoke and limit apply an operator's change to a loaded key (an unloaded
// one reads it from the store when it loads).
func (a *accountActor) revoke(m *keyRevoke) {
	if k, ok := a.keys[m.KeyID]; ok {
		at := m.At
		k.key.RevokedAt = &at
		k.version++
	}
}

// update applies a change of a loaded key's name, ceiling, period or
// disabled state. A new period recounts the spend: what was charged between
// the new period's start and the old one's is added (or, for a shorter
// period, taken away), read from the store oldest start first, so that a
// charge committed between the two reads is counted rather than missed.
func (a *accountActor) update(m *keyUpdate) {
	k, ok := a.keys[m.Key.ID]
	if !ok {
		return
	}
	k.key.Name, k.key.Limit, k.key.Disabled, k.key.UpdatedAt = m.Key.Name, m.Key.Limit, m.Key.Disabled, m.Key.UpdatedAt
	k.version++
	if m.Key.LimitReset == k.key.LimitReset {
		return
	}
	k.key.LimitReset = m.Key.LimitReset
	oldStart := k.periodStart
	k.periodStart = shlyuz.PeriodStart(m.Now, k.key.LimitReset, a.deps.loc)
	k.periodEnd = shlyuz.PeriodEnd(m.Now, k.key.LimitReset, a.deps.loc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before, err := a.deps.store.KeySpend(ctx, k.key.ID, oldStart)
	if err != nil {
		return // the spend of the old period stands until the next one
	}
	since, err := a.deps.store.KeySpend(ctx, k.key.ID, k.periodStart)
	if err != nil {
		return
	}
	k.spent = max(k.spent+since-before, 0)
}

func (a *accountActor) limit(m *keyLimit) { // the spend of the period and the holds stay
	if k, ok := a.keys[m.KeyID]; ok {
		k.key.Limit = m.Limit
		k.version++
	}
}
