package actors

import (
	"github.com/asynkron/protoactor-go/actor"
	shlyuz "github.com/shlyuz/shlyuz"
	directory "github.com/shlyuz/shlyuz/cluster"
)

// reserveFixed holds a media call's worst case, given in credits, against the
// key's ceiling and forwards the rest of the reservation to the account.
func (a *keyActor) reserveFixed(ctx actor.Context, m *keyReserve) {
	if a.key.Limit != nil {
		left := *a.key.Limit - a.spent - a.reserved
		if m.Fixed > left {
			ctx.Respond(&reserved{Err: shlyuz.ErrKeyLimitExceededCredits(*a.key.Limit, a.spent+a.reserved, a.periodEnd, m.Fixed)})
			return
		}
	}
	account, err := a.deps.dir.PID(a.key.AccountID, KindAccount)
	if err != nil {
		ctx.Respond(&reserved{Err: shlyuz.ErrInternal(err)})
		return
	}
	a.holds[m.GenID] = m.Fixed
	a.reserved += m.Fixed
	ctx.RequestWithCustomSender(account, &acctReserve{
		GenID: m.GenID, KeyID: a.key.ID, KeyPID: directory.Detached(ctx.Self()), KeyAmount: m.Fixed, Fixed: m.Fixed, Now: m.Now,
	}, ctx.Sender())
}

// reserveFixed holds a media call's worst case, given in credits, against
// what the balance has free.
func (a *accountActor) reserveFixed(m *acctReserve, free shlyuz.Credits) *reserved {
	if m.Fixed > free {
		return &reserved{Err: shlyuz.ErrInsufficientCreditsFor(max(free, 0), m.Fixed)}
	}
	a.holds[m.GenID] = m.Fixed
	a.reserved += m.Fixed
	return &reserved{KeyID: m.KeyID, AccountID: a.balance.AccountID, Amount: m.Fixed}
}
