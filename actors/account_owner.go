package actors

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	shlyuz "github.com/shlyuz/shlyuz"
	directory "github.com/shlyuz/shlyuz/cluster"
)

// Lease is this node's membership lease (cluster.Lease): an account is
// claimed in the member's name, and nothing is granted unless it is live.
type Lease interface {
	ID() string
	Live() bool
	TTL() time.Duration
}

// activation is a live account activation of this node.
type activation struct {
	epoch int64
	pid   *actor.PID
}

// claim takes the account for this node: lease-gated when the node has a
// lease (a live owner elsewhere refuses it), unconditional otherwise.
func (a *accountActor) claim(ctx context.Context, id string) (shlyuz.Balance, *shlyuz.Error) {
	l := a.deps.lease
	if l == nil {
		b, err := a.deps.store.ClaimBalance(ctx, id)
		if err != nil {
			return b, shlyuz.ErrInternal(err)
		}
		return b, nil
	}
	if !l.Live() {
		return shlyuz.Balance{}, shlyuz.ErrNodeFenced()
	}
	b, err := a.deps.store.ClaimBalanceAs(ctx, id, l.ID(), a.deps.now())
	switch {
	case errors.Is(err, shlyuz.ErrOwnedElsewhere):
		return b, shlyuz.ErrAccountMoving()
	case err != nil:
		return b, shlyuz.ErrInternal(err)
	}
	return b, nil
}

// collect asks every live node's call registry for the account's calls in
// flight, granted by an earlier activation, and adopts them as holds before
// this activation grants anything: it never grants what they may still
// spend, and their settlements are applied here. Every registry asked voids
// the older grants that reach it later. A node that does not answer is
// waited for until its lease runs out (it is gone, or fenced and its calls
// void), at most two lease lengths; then the account is "moving" (503).
func (a *accountActor) collect(ctx context.Context, actx actor.Context) *shlyuz.Error {
	id, epoch := a.balance.AccountID, a.balance.Epoch
	calls := a.deps.calls.report(id, epoch)
	if a.deps.lease != nil {
		more, err := a.deps.collectRemote(ctx, actx.ActorSystem(), id, epoch)
		if err != nil {
			return err
		}
		calls = append(calls, more...)
	}
	for _, c := range calls {
		if _, ok := a.holds[c.GenID]; ok {
			continue // a video job's hold, loaded from the store already
		}
		k, err := a.keyOf(c.KeyID)
		if err != nil {
			return err
		}
		a.addHold(c.GenID, hold{amount: c.Held, keyID: k.key.ID, requester: c.Requester})
	}
	return nil
}

// collectRemote asks the registries of the other live cluster members.
func (d *deps) collectRemote(ctx context.Context, sys *actor.ActorSystem, account string, epoch int64) ([]heldCall, *shlyuz.Error) {
	ttl := d.lease.TTL()
	deadline := time.Now().Add(2 * ttl)
	pending := map[string]string{} // member id → actor address
	members, err := d.store.Members(ctx, time.Now())
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	for _, m := range members {
		if m.ID != d.lease.ID() && m.Mode == directory.ModeSQL && m.Address != "" {
			pending[m.ID] = m.Address
		}
	}
	var out []heldCall
	for len(pending) > 0 {
		futures := make(map[string]*actor.Future, len(pending))
		for id, addr := range pending {
			futures[id] = sys.Root.RequestFuture(actor.NewPID(addr, callsActorName), &holdsQuery{Account: account, Epoch: epoch}, ttl/2)
		}
		for id, f := range futures {
			if res, err := f.Result(); err == nil {
				if r, ok := res.(*holdsReport); ok {
					out = append(out, r.Calls...)
					delete(pending, id)
				}
			}
		}
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, shlyuz.ErrAccountMoving()
		}
		live, err := d.store.Members(ctx, time.Now())
		if err != nil {
			return nil, shlyuz.ErrInternal(err)
		}
		still := make(map[string]bool, len(live))
		for _, m := range live {
			still[m.ID] = true
		}
		for id := range pending {
			if !still[id] {
				delete(pending, id) // its lease ran out: gone, or fenced with its calls
			}
		}
		if len(pending) > 0 {
			select {
			case <-ctx.Done():
				return nil, shlyuz.ErrAccountMoving()
			case <-time.After(ttl / 8):
			}
		}
	}
	return out, nil
}

// checkFence stops granting at once when the node lost its lease or the
// store refused an entry of this activation's epoch: every later request
// gets the error, and the activation stops after answering it.
func (a *accountActor) checkFence() {
	if a.loadErr != nil {
		return
	}
	if l := a.deps.lease; l != nil && !l.Live() {
		a.loadErr = shlyuz.ErrNodeFenced()
		return
	}
	if a.deps.journal.Fenced(a.balance.AccountID, a.balance.Epoch) {
		a.loadErr = shlyuz.ErrConflict("account_moved", "The account is being served elsewhere; retry.")
	}
}

// release hands an idle account back once its charges are committed, so
// that another node may claim it at once; a re-activation here since (a
// higher epoch) keeps it.
func (a *accountActor) release() {
	l, b := a.deps.lease, a.balance
	if b.AccountID != "" {
		if v, ok := a.deps.active.Load(b.AccountID); ok && v.(activation).epoch == b.Epoch {
			a.deps.active.CompareAndDelete(b.AccountID, v)
		}
	}
	if l == nil || !a.claimed || !l.Live() {
		return // no lease, nothing claimed, or the node is leaving (it releases all at once)
	}
	j, store := a.deps.journal, a.deps.store
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if j.Flush(ctx) == nil {
			_ = store.ReleaseBalance(ctx, b.AccountID, l.ID(), b.Epoch)
		}
	}()
}
