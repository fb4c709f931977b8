package actors

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	shlyuz "github.com/shlyuz/shlyuz"
)

// keyActor keeps one API key's ceiling, spend in the current period and the
// reservations of its requests in flight. Its identity is the key's hash.
type keyActor struct {
	deps *deps

	loaded      bool
	loadErr     *shlyuz.Error
	key         shlyuz.Key
	periodStart time.Time
	periodEnd   time.Time
	spent       shlyuz.Credits
	reserved    shlyuz.Credits
	holds       map[string]shlyuz.Credits
}

func (a *keyActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *cluster.ClusterInit:
		a.load(m.Identity.Identity)
	case *keyCheck:
		if a.loadErr != nil {
			ctx.Respond(&keyState{Err: a.loadErr})
			ctx.Poison(ctx.Self()) // an unknown key or a failed load: nothing to keep
			return
		}
		a.roll(m.Now)
		ctx.Respond(&keyState{Key: a.key, Spent: a.spent, Reserved: a.reserved, Err: a.key.Usable(m.Now), ResetsAt: a.periodEnd})
	case *keyReserve:
		ctx.Respond(a.reserve(m))
		if a.loadErr != nil {
			ctx.Poison(ctx.Self())
		}
	case *keyAdjust:
		if old, ok := a.holds[m.GenID]; ok && m.Amount < old {
			a.holds[m.GenID] = m.Amount
			a.reserved -= old - m.Amount
		}
	case *keySettle:
		if old, ok := a.holds[m.GenID]; ok {
			delete(a.holds, m.GenID)
			a.reserved -= old
			a.roll(m.Now)
			a.spent += m.Amount
		}
	case *keyRevoke:
		at := m.At
		a.key.RevokedAt = &at
		ctx.Respond(&keyState{Key: a.key})
	}
}

func (a *keyActor) load(hash string) {
	a.holds = make(map[string]shlyuz.Credits)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	k, err := a.deps.store.KeyByHash(ctx, hash)
	if errors.Is(err, shlyuz.ErrNoRows) {
		a.loadErr = shlyuz.ErrInvalidKey()
		return
	}
	if err != nil {
		a.loadErr = shlyuz.ErrInternal(err)
		return
	}
	a.key = k
	now := a.deps.now()
	a.periodStart = shlyuz.PeriodStart(now, k.LimitReset, a.deps.loc)
	a.periodEnd = shlyuz.PeriodEnd(now, k.LimitReset, a.deps.loc)
	a.spent, err = a.deps.store.KeySpend(ctx, k.ID, a.periodStart)
	if err != nil {
		a.loadErr = shlyuz.ErrInternal(err)
		return
	}
	a.loaded = true
}

// roll starts a new period when now has left the current one.
func (a *keyActor) roll(now time.Time) {
	if a.periodEnd.IsZero() || now.Before(a.periodEnd) {
		return
	}
	a.periodStart = shlyuz.PeriodStart(now, a.key.LimitReset, a.deps.loc)
	a.periodEnd = shlyuz.PeriodEnd(now, a.key.LimitReset, a.deps.loc)
	a.spent = 0
}

func (a *keyActor) reserve(m *keyReserve) *keyReserved {
	if a.loadErr != nil {
		return &keyReserved{Err: a.loadErr}
	}
	if err := a.key.Usable(m.Now); err != nil {
		return &keyReserved{Err: err}
	}
	a.roll(m.Now)
	if old, ok := a.holds[m.GenID]; ok { // a retried request: replace its hold
		a.reserved -= old
		delete(a.holds, m.GenID)
	}
	tokens := m.MaxOut
	if m.MaxTokens > 0 {
		tokens = m.MaxTokens
	}
	if a.key.Limit != nil {
		left := *a.key.Limit - a.spent - a.reserved
		afford := m.Price.CompletionTokensFor(left, m.Prompt)
		if m.MaxTokens == 0 {
			tokens = min(tokens, afford)
		}
		if afford < 1 || tokens > afford {
			return &keyReserved{Err: shlyuz.ErrKeyLimitExceeded(*a.key.Limit, a.spent+a.reserved, a.periodEnd, afford, max(tokens, 1))}
		}
	}
	amount := m.Price.Charge(m.Prompt, tokens)
	a.holds[m.GenID] = amount
	a.reserved += amount
	return &keyReserved{KeyID: a.key.ID, AccountID: a.key.AccountID, Tokens: tokens, Amount: amount}
}
