package actors

import (
	shlyuz "github.com/shlyuz/shlyuz"
)

// settleDurably sends the settlement and waits until the journal has
// committed its charge: a reply finished after this survives a kill -9 of
// the node with its charge, and a refused charge withholds the reply.
func (g *Gateway) settleDurably(accountID string, m *acctSettle) error {
	res, err := g.dir.Request(accountID, KindAccount, m, g.timeout)
	if err != nil {
		return shlyuz.ErrChargeNotCommitted()
	}
	if ack, ok := res.(*settleAck); !ok || ack.Refused {
		return shlyuz.ErrChargeNotCommitted()
	}
	return nil
}

// DurableSettle says whether replies wait for their charge's commit.
func (g *Gateway) DurableSettle() bool { return g.durable }

// RefusedCharges are the charges the store refused since this node started.
func (g *Gateway) RefusedCharges() []string { return g.journal.RefusedCharges() }
