package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	shlyuz "github.com/shlyuz/shlyuz"
	directory "github.com/shlyuz/shlyuz/cluster"
)

// accountActor keeps one account's balance and the reservations of its
// requests in flight. It claims the account's epoch on activation, so that a
// stale activation elsewhere can no longer commit spending.
type accountActor struct {
	deps *deps
	idle idleState

	loadErr  *shlyuz.Error
	balance  shlyuz.Balance
	reserved shlyuz.Credits
	holds    map[string]shlyuz.Credits
}

func (a *accountActor) Receive(ctx actor.Context) {
	if a.deps.passivation(ctx, &a.idle, a.balance.AccountID, KindAccount, a.reserved != 0 || len(a.holds) > 0) {
		return
	}
	switch m := ctx.Message().(type) {
	case *cluster.ClusterInit:
		a.load(m.Identity.Identity)
		a.deps.activated()
	case *actor.Stopped:
		a.release()
		a.deps.stopped()
	case *acctReserve:
		a.checkFence()
		r := a.reserve(m)
		switch {
		case r.Err != nil: // the key's hold goes too
			ctx.Send(m.KeyPID, &keySettle{GenID: m.GenID, Now: m.Now})
		case r.Amount < m.KeyAmount:
			ctx.Send(m.KeyPID, &keyAdjust{GenID: m.GenID, Amount: r.Amount})
		}
		ctx.Respond(r)
	case *acctSettle:
		a.settle(m, settleDone(ctx))
	case *acctSettleVideo:
		a.checkFence()
		ctx.Respond(a.settleVideo(m))
	case *drain:
		ctx.Respond(m)
	case *acctBalance:
		if a.loadErr != nil {
			ctx.Respond(&acctBalanceReply{Err: a.loadErr})
			return
		}
		a.expire(m.Now)
		ctx.Respond(&acctBalanceReply{Balance: a.balance, Reserved: a.reserved})
	case *acctApply:
		a.checkFence()
		ctx.Respond(a.apply(m))
	}
	if a.loadErr != nil && ctx.Sender() != nil {
		ctx.Poison(directory.Detached(ctx.Self())) // a failed load or a lost claim: let the next request activate afresh
	}
}

func (a *accountActor) load(id string) {
	a.holds = make(map[string]shlyuz.Credits)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := a.claim(ctx, id)
	if err != nil {
		a.loadErr = err
		return
	}
	a.balance = b
	a.deps.active.Store(id, b.Epoch)
	if err := a.loadVideoHolds(ctx); err != nil {
		a.loadErr = shlyuz.ErrInternal(err)
	}
}

// expire journals the zeroing of a package whose period ended.
func (a *accountActor) expire(now time.Time) {
	if e := a.balance.ExpirePackage(now); e != nil {
		e.Epoch = a.balance.Epoch
		a.balance.Apply(e)
		a.deps.journal.Add(e, nil)
	}
}

func (a *accountActor) reserve(m *acctReserve) *reserved {
	if a.loadErr != nil {
		return &reserved{Err: a.loadErr}
	}
	a.expire(m.Now)
	if old, ok := a.holds[m.GenID]; ok {
		a.reserved -= old
		delete(a.holds, m.GenID)
	}
	free := a.balance.Available(m.Now) - a.reserved
	if m.Fixed > 0 {
		return a.reserveFixed(m, free)
	}
	afford := m.Price.CompletionTokensFor(free, m.Prompt)
	tokens := m.MaxTokens
	if tokens == 0 {
		tokens = min(m.KeyTokens, afford)
	}
	if afford < 1 || tokens > afford {
		return &reserved{Err: shlyuz.ErrInsufficientCredits(max(free, 0), afford, max(tokens, 1), m.MaxTokens > 0)}
	}
	amount := m.Price.Charge(m.Prompt, tokens)
	a.holds[m.GenID] = amount
	a.reserved += amount
	return &reserved{KeyID: m.KeyID, AccountID: a.balance.AccountID, Tokens: tokens, Amount: amount}
}

// settle releases a reservation and debits what the request cost, never more
// than was reserved, so the balance cannot go below zero.
func (a *accountActor) settle(m *acctSettle, done func(error)) {
	hold, ok := a.holds[m.GenID]
	if !ok { // settled already, or never reserved here (a fenced activation's call)
		if done != nil {
			done(ErrChargeRefused)
		}
		return
	}
	delete(a.holds, m.GenID)
	a.reserved -= hold
	var entry *shlyuz.LedgerEntry
	if amount := min(m.Amount, hold); amount > 0 {
		pkg, bought := a.balance.Split(amount, m.Now)
		entry = &shlyuz.LedgerEntry{
			ID:           "chg-" + m.GenID,
			AccountID:    a.balance.AccountID,
			KeyID:        m.KeyID,
			Kind:         shlyuz.EntryCharge,
			PackageDelta: pkg,
			BoughtDelta:  bought,
			Epoch:        a.balance.Epoch,
			CreatedAt:    m.Now,
		}
		a.balance.Apply(entry)
	}
	if entry != nil || m.Generation != nil {
		a.deps.journal.AddNotify(entry, m.Generation, done)
	} else if done != nil {
		done(nil)
	}
}

// apply writes an operator's entry before it is acknowledged.
func (a *accountActor) apply(m *acctApply) *acctApplied {
	if a.loadErr != nil {
		return &acctApplied{Err: a.loadErr}
	}
	a.expire(m.Now)
	e := m.Entry
	if m.Plan != nil {
		e.Kind = shlyuz.EntryPackageGranted
		e.PackageExpiresAt = shlyuz.PlanPeriodEnd(m.Now, m.Plan.Period, a.deps.loc)
		current := a.balance.PackageCredits
		e.PackageDelta = m.Plan.PackageCredits - current // the new package replaces what is left of the old
	}
	e.AccountID = a.balance.AccountID
	e.Epoch = a.balance.Epoch
	e.CreatedAt = m.Now
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := a.deps.store.Commit(ctx, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{e}})
	if err != nil {
		return &acctApplied{Err: shlyuz.ErrInternal(err)}
	}
	switch {
	case len(res.Applied) == 1:
		a.balance.Apply(&e)
		return &acctApplied{Balance: a.balance}
	case len(res.Duplicate) == 1:
		prev, err := a.deps.store.Entry(ctx, e.ID)
		if err != nil {
			return &acctApplied{Err: shlyuz.ErrInternal(err)}
		}
		if prev.AccountID != e.AccountID || prev.Kind != e.Kind || (m.Plan == nil && prev.Amount() != e.Amount()) {
			return &acctApplied{Err: shlyuz.ErrConflict("idempotency_conflict", "This idempotency key was already used for a different operation; use a new key.")}
		}
		return &acctApplied{Balance: a.balance, Duplicate: true}
	default:
		a.loadErr = shlyuz.ErrInternal(nil) // fenced: another activation owns the account now
		return &acctApplied{Err: shlyuz.ErrConflict("account_moved", "The account is being served elsewhere; retry.")}
	}
}
