package actors

import (
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// grant reserves at the account's activation and records the grant in this
// node's call registry. A grant that an activation at a newer epoch can no
// longer know of (it collected the account's calls in flight before the
// grant was recorded here) is void: it is asked for again, at the new
// activation. No answer at all is a moving account (503): whatever the
// activation may hold for the call is let go.
func (g *Gateway) grant(accountID string, msg *acctReserve) (*reserved, error) {
	if !g.Live() {
		return nil, shlyuz.ErrNodeFenced()
	}
	g.granting.Add(1)
	defer g.granting.Add(-1)
	for range 4 {
		res, err := g.dir.Request(accountID, KindAccount, msg, g.timeout)
		if err != nil {
			if msg.Slice > 0 { // before the release, which drops the hold that remembers the grant
				g.slices.untaken(accountID, msg.KeyID, msg.GenID)
			}
			g.dir.Send(accountID, KindAccount, &acctSettle{GenID: msg.GenID, KeyID: msg.KeyID, Now: msg.Now})
			return nil, shlyuz.ErrAccountMoving()
		}
		ar := res.(*reserved)
		if ar.Err != nil {
			return nil, ar.Err
		}
		if g.calls.grant(accountID, heldCall{GenID: msg.GenID, KeyID: ar.KeyID, Held: ar.Amount, Epoch: ar.Epoch}) {
			g.slices.add(ar)
			return ar, nil
		}
	}
	return nil, shlyuz.ErrAccountMoving()
}

// settleDurably sends the settlement and waits until the journal has
// committed its charge: a reply finished after this survives a kill -9 of
// the node with its charge, and a refused charge withholds the reply. A
// settlement that finds no activation, or one that lost the account, is
// sent again with back-off, to the account's owner as the directory finds
// it then, for a few lease lengths: the new owner adopted the call's hold
// and applies its charge once (chg-<id>).
func (g *Gateway) settleDurably(accountID string, m *acctSettle) error {
	g.settling.Add(1)
	defer g.settling.Add(-1)
	attempt, giveUp := g.timeout, g.timeout
	if g.lease != nil {
		attempt = min(attempt, max(g.lease.TTL(), time.Second))
		giveUp += 4 * g.lease.TTL()
	}
	deadline := time.Now().Add(giveUp)
	backoff := 20 * time.Millisecond
	committed := false // acknowledged by an activation, but adopted by a newer one since
	for {
		if g.sliced(accountID) {
			g.remoteSettles.Add(1)
		}
		res, err := g.dir.Request(accountID, KindAccount, m, attempt)
		if ack, ok := res.(*settleAck); err == nil && ok {
			switch {
			case ack.Refused:
				g.calls.done(accountID, m.GenID)
				return shlyuz.ErrChargeNotCommitted()
			case !ack.Moved:
				if g.calls.acked(accountID, m.GenID, ack.Epoch) {
					g.slices.add(&reserved{AccountID: accountID, KeyID: m.KeyID, Epoch: ack.Epoch, Slice: ack.Slice, Key: ack.Key, KeyVersion: ack.KeyVersion})
					return nil
				}
				committed = true // settle it at the newer activation too: a duplicate that frees its hold
			}
		}
		if !g.Live() || time.Now().After(deadline) {
			g.calls.done(accountID, m.GenID)
			if m.Refill > 0 { // no acknowledgement came: the refill it carried, if any, was never counted here
				g.slices.untaken(accountID, m.KeyID, m.GenID)
			}
			if committed {
				return nil
			}
			return shlyuz.ErrChargeNotCommitted()
		}
		time.Sleep(backoff) // a back-off between attempts, not a wait for an effect
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// DurableSettle says whether replies wait for their charge's commit.
func (g *Gateway) DurableSettle() bool { return g.durable }

// RefusedCharges are the charges the store refused since this node started.
func (g *Gateway) RefusedCharges() []string { return g.journal.RefusedCharges() }
