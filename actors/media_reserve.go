package actors

import (
	shlyuz "github.com/shlyuz/shlyuz"
)

// reserveFixed holds a media call's worst case, given in credits, against
// its key's ceiling and what the balance has free.
func (a *accountActor) reserveFixed(m *acctReserve, k *keyLedger, free shlyuz.Credits) *reserved {
	if left, ok := k.left(); ok && m.Fixed > left {
		return &reserved{Err: shlyuz.ErrKeyLimitExceededCredits(*k.key.Limit, k.spent+k.reserved, k.periodEnd, m.Fixed)}
	}
	if m.Fixed > free {
		return &reserved{Err: shlyuz.ErrInsufficientCreditsFor(max(free, 0), m.Fixed)}
	}
	a.addHold(m.GenID, hold{amount: m.Fixed, keyID: k.key.ID, requester: m.Requester})
	return &reserved{KeyID: k.key.ID, AccountID: a.balance.AccountID, Amount: m.Fixed, Epoch: a.balance.Epoch}
}
