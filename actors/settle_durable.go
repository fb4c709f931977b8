package actors

import (
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// settleDurably sends the settlement and waits until the journal has
// committed its charge: a reply finished after this survives a kill -9 of
// the node with its charge, and a refused charge withholds the reply.
func (g *Gateway) settleDurably(accountID string, m *acctSettle) error {
	m.Committed = make(chan error, 1)
	g.dir.Send(accountID, KindAccount, m)
	t := time.NewTimer(g.timeout + 2*time.Second) // beyond a journal retry or two
	defer t.Stop()
	select {
	case err := <-m.Committed:
		if err != nil {
			return shlyuz.ErrChargeNotCommitted()
		}
		return nil
	case <-t.C:
		return shlyuz.ErrChargeNotCommitted()
	}
}

// DurableSettle says whether replies wait for their charge's commit.
func (g *Gateway) DurableSettle() bool { return g.durable }

// RefusedCharges are the charges the store refused since this node started.
func (g *Gateway) RefusedCharges() []string { return g.journal.RefusedCharges() }
