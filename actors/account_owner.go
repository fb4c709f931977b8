package actors

import (
	"context"

	"errors"
	"github.com/asynkron/protoactor-go/actor"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Lease is this node's membership lease (cluster.Lease): an account is
// claimed in the member's name, and nothing is granted unless it is live.
type Lease interface {
	ID() string
	Live() bool
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
		a.deps.active.CompareAndDelete(b.AccountID, b.Epoch)
	}
	if l == nil || a.loadErr != nil || b.AccountID == "" || !l.Live() {
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

// settleDone answers a settlement that was sent as a request (durable
// settlement, from this node or another) once its charge is committed or
// refused; a one-way settlement gets no answer.
func settleDone(ctx actor.Context) func(error) {
	sender := ctx.Sender()
	if sender == nil {
		return nil
	}
	root := ctx.ActorSystem().Root
	return func(err error) { root.Send(sender, &settleAck{Refused: err != nil}) }
}
