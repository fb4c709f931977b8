package actors

import (
	"context"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	shlyuz "github.com/shlyuz/shlyuz"
	directory "github.com/shlyuz/shlyuz/cluster"
)

// accountActor keeps one account's balance, its keys' ceilings and spend,
// and the reservations of its requests in flight. It claims the account's
// epoch on activation, so that a stale activation elsewhere can no longer
// commit spending, and adopts the holds of the calls an earlier activation
// granted before it grants anything itself.
type accountActor struct {
	deps *deps
	idle idleState

	loadErr  *shlyuz.Error
	claimed  bool // by this activation (it releases the claim when it stops)
	balance  shlyuz.Balance
	reserved shlyuz.Credits
	holds    map[string]hold
	keys     map[string]*keyLedger
	settled  settleBook
}

// hold is one call's reservation at the account.
type hold struct {
	amount    shlyuz.Credits
	keyID     string
	requester string         // the member whose call it is; "" for this node's or a video job's
	from      string         // a slice's: its requester's actor address (account_slices.go)
	sliced    shlyuz.Credits // a call's: what its reservation added to its requester's slice
	// tokens is the estimate counted against the key's tokens-a-minute limit
	// at admission, in the window starting at tokensIn; settled to the real count.
	tokens   int64
	tokensIn time.Time
}

func (a *accountActor) Receive(ctx actor.Context) {
	if a.deps.passivation(ctx, &a.idle, a.balance.AccountID, KindAccount, a.reserved != 0 || len(a.holds) > 0 || a.settled.pending.Load() > 0) {
		return
	}
	switch m := ctx.Message().(type) {
	case *cluster.ClusterInit:
		a.load(ctx, m.Identity.Identity)
		a.deps.activated()
	case *actor.Stopped:
		a.release()
		a.deps.stopped()
	case *keyCheck:
		a.checkFence()
		ctx.Respond(a.check(m))
	case *acctReserve:
		a.checkFence()
		r := a.reserve(m)
		a.grantSlice(m, r)
		ctx.Respond(r)
	case *acctSettle:
		a.checkFence()
		a.settle(ctx, m, settleReply(ctx))
	case *settleCommitted:
		a.committed(m)
	case *acctSettleVideo:
		a.checkFence()
		ctx.Respond(a.settleVideo(m))
	case *keyRevoke:
		a.revoke(m)
		ctx.Respond(a.sliceHolders(m.KeyID))
	case *keyLimit:
		a.limit(m)
		ctx.Respond(a.sliceHolders(m.KeyID))
	case *keyUpdate:
		a.update(m)
		ctx.Respond(a.sliceHolders(m.Key.ID))
	case *sliceReturn:
		a.returnSlice(m)
	case *requestersLeft:
		a.dropRequesters(m.IDs)
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

func (a *accountActor) load(actx actor.Context, id string) {
	a.holds = make(map[string]hold)
	a.keys = make(map[string]*keyLedger)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := a.claim(ctx, id)
	if err != nil {
		a.loadErr = err
		return
	}
	a.balance, a.claimed = b, true
	a.deps.active.Store(id, activation{epoch: b.Epoch, pid: directory.Detached(actx.Self())})
	if err := a.loadVideoHolds(ctx); err != nil {
		a.loadErr = shlyuz.ErrInternal(err)
		return
	}
	a.loadErr = a.collect(ctx, actx)
}

// expire journals the zeroing of a package whose period ended.
func (a *accountActor) expire(now time.Time) {
	if e := a.balance.ExpirePackage(now); e != nil {
		e.Epoch = a.balance.Epoch
		a.balance.Apply(e)
		a.deps.journal.Add(e, nil)
	}
}

// reserve holds a request's worst case against its key's ceiling and the
// account's balance: the key's refusal (403) comes before the balance's (402).
func (a *accountActor) reserve(m *acctReserve) *reserved {
	if a.loadErr != nil {
		return &reserved{Err: a.loadErr}
	}
	k, kerr := a.keyOf(m.KeyID)
	if kerr != nil {
		return &reserved{Err: kerr}
	}
	if err := k.key.Usable(m.Now); err != nil {
		return &reserved{Err: err}
	}
	if k.key.Management {
		return &reserved{Err: shlyuz.ErrManagementKey()}
	}
	if err := k.key.CheckModel(m.Model); err != nil {
		return &reserved{Err: err}
	}
	k.roll(a, m.Now)
	a.expire(m.Now)
	if prev, ok := a.holds[m.GenID]; ok { // a retried request: replace its hold
		a.dropHold(m.GenID)
		a.releaseTokens(prev, m.Now)
	} else if rl := k.key.RateLimit; rl != nil { // a new call counts against the rate limit
		if st, ok := k.rate.Admit(*rl, m.Now); !ok {
			return &reserved{Err: shlyuz.ErrRateLimitedKey(*rl, st)}
		}
	}
	free := a.balance.Available(m.Now) - a.reserved
	if m.Fixed > 0 {
		return a.reserveFixed(m, k, free)
	}
	// The cap is lowered to what the key's ceiling and the balance afford,
	// down to the call's floor: an agent asks for the model's whole output
	// as a habit, and its call is served with what it can pay for.
	tokens, floor := m.completionCap(), m.floor()
	n := max(m.N, 1)
	if left, ok := k.left(); ok {
		afford := m.Price.CompletionTokensFor(left, m.Prompt) / n
		if afford < floor {
			return &reserved{Err: shlyuz.ErrKeyLimitExceeded(*k.key.Limit, k.spent+k.reserved, k.periodEnd, afford, floor)}
		}
		tokens = min(tokens, afford)
	}
	afford := m.Price.CompletionTokensFor(free, m.Prompt) / n
	if afford < floor {
		return &reserved{Err: shlyuz.ErrInsufficientCredits(max(free, 0), afford, floor, m.MaxTokens > 0)}
	}
	tokens = min(tokens, afford)
	amount := m.Price.Charge(m.Prompt, shlyuz.MulChecked(tokens, n))
	h := hold{amount: amount, keyID: k.key.ID, requester: m.Requester}
	if rl := k.key.RateLimit; rl != nil && rl.TokensPerMinute > 0 { // the worst case counts until the call settles
		h.tokens = shlyuz.AddChecked(m.Prompt, shlyuz.MulChecked(tokens, n))
		h.tokensIn = k.rate.Hold(h.tokens, m.Now)
	}
	a.addHold(m.GenID, h)
	return &reserved{KeyID: k.key.ID, AccountID: a.balance.AccountID, Tokens: tokens, Amount: amount, Epoch: a.balance.Epoch}
}

// addHold reserves for a call at the account and its key (loaded already).
func (a *accountActor) addHold(genID string, h hold) {
	a.holds[genID] = h
	a.reserved += h.amount
	if k, ok := a.keys[h.keyID]; ok {
		k.reserved += h.amount
	}
}

// dropHold releases a call's reservation at the account and its key.
func (a *accountActor) dropHold(genID string) (hold, bool) {
	h, ok := a.holds[genID]
	if !ok {
		return h, false
	}
	delete(a.holds, genID)
	a.reserved -= h.amount
	if k, ok := a.keys[h.keyID]; ok {
		k.reserved -= h.amount
	}
	return h, true
}

// releaseTokens takes back a dropped hold's tokens-a-minute estimate (a call
// that will not settle, or is replaced by its retry).
func (a *accountActor) releaseTokens(h hold, now time.Time) {
	if k, ok := a.keys[h.keyID]; ok && h.tokens > 0 {
		k.rate.Settle(h.tokens, h.tokensIn, 0, now)
	}
}

// dropRequesters releases the holds of calls whose node left the cluster:
// that node fenced itself or is gone, and its calls can no longer be settled.
func (a *accountActor) dropRequesters(ids []string) {
	for genID, h := range a.holds {
		if h.requester != "" && slices.Contains(ids, h.requester) {
			a.dropHold(genID)
			a.releaseTokens(h, time.Now())
		}
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
	if err := a.bound(&e); err != nil {
		return &acctApplied{Err: err}
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
		// A plan's and a refund's amounts depend on the balance at the time: their id alone says they are the same.
		sameAmount := m.Plan != nil || e.Kind == shlyuz.EntryAdjustment || prev.Amount() == e.Amount()
		if prev.AccountID != e.AccountID || prev.Kind != e.Kind || !sameAmount {
			return &acctApplied{Err: shlyuz.ErrConflict("idempotency_conflict", "This idempotency key was already used for a different operation; use a new key.")}
		}
		return &acctApplied{Balance: a.balance, Duplicate: true}
	default:
		a.loadErr = shlyuz.ErrInternal(nil) // fenced: another activation owns the account now
		return &acctApplied{Err: shlyuz.ErrConflict("account_moved", "The account is being served elsewhere; retry.")}
	}
}

// bound keeps an operator's entry within the money invariants: a credit
// never takes the balance past shlyuz.MaxCredits (a 400, nothing written),
// and a refund takes back only what remains, neither spent nor held by calls
// in flight (which spend the package first): a balance never goes below zero.
func (a *accountActor) bound(e *shlyuz.LedgerEntry) *shlyuz.Error {
	pkg, bought := max(a.balance.PackageCredits, 0), max(a.balance.BoughtCredits, 0)
	if e.Kind == shlyuz.EntryAdjustment {
		heldOnPackage := min(a.reserved, pkg)
		heldOnBought := max(0, a.reserved-pkg)
		e.PackageDelta = max(e.PackageDelta, -max(0, pkg-heldOnPackage))
		e.BoughtDelta = max(e.BoughtDelta, -max(0, bought-heldOnBought))
		return nil
	}
	after := shlyuz.AddChecked(shlyuz.AddChecked(pkg+max(e.PackageDelta, -pkg), bought), e.BoughtDelta)
	if e.BoughtDelta > shlyuz.MaxCredits || e.PackageDelta > shlyuz.MaxCredits || after > shlyuz.MaxCredits {
		return shlyuz.ErrInvalidValue("credits", "The balance would be %d credits, above the most an account may hold (%d credits, %s rubles).",
			after, shlyuz.MaxCredits, shlyuz.FormatRubles(shlyuz.MaxCredits))
	}
	return nil
}
