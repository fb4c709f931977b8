package actors

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	shlyuz "github.com/shlyuz/shlyuz"
	directory "github.com/shlyuz/shlyuz/cluster"
)

// keyActor keeps one API key's ceiling, spend in the current period and the
// reservations of its requests in flight. Its identity is the key's hash.
type keyActor struct {
	deps *deps

	hash        string // the identity
	idle        idleState
	loaded      bool
	loadErr     *shlyuz.Error
	key         shlyuz.Key
	periodStart time.Time
	periodEnd   time.Time
	spent       shlyuz.Credits
	reserved    shlyuz.Credits
	holds       map[string]shlyuz.Credits
	rate        shlyuz.RateWindow // requests and tokens of the current minute (Key.RateLimit)
}

func (a *keyActor) Receive(ctx actor.Context) {
	if a.deps.passivation(ctx, &a.idle, a.hash, KindKey, a.reserved != 0 || len(a.holds) > 0) {
		return
	}
	switch m := ctx.Message().(type) {
	case *cluster.ClusterInit:
		a.load(m.Identity.Identity)
		a.deps.activated()
	case *actor.Stopped:
		a.deps.stopped()
	case *keyCheck:
		if a.loadErr != nil {
			ctx.Respond(&keyState{Err: a.loadErr})
			ctx.Poison(directory.Detached(ctx.Self())) // an unknown key or a failed load: nothing to keep
			return
		}
		a.roll(m.Now)
		ctx.Respond(&keyState{Key: a.key, Spent: a.spent, Reserved: a.reserved, Err: a.key.Usable(m.Now), ResetsAt: a.periodEnd})
	case *keyReserve:
		a.reserve(ctx, m)
		if a.loadErr != nil {
			ctx.Poison(directory.Detached(ctx.Self()))
		}
	case *keyAdjust:
		if old, ok := a.holds[m.GenID]; ok && m.Amount < old {
			a.holds[m.GenID] = m.Amount
			a.reserved -= old - m.Amount
		}
	case *keySettle:
		if a.key.RateLimit != nil && m.Tokens > 0 {
			a.rate.Spend(m.Tokens, m.Now)
		}
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
	case *keyLimit: // the spend of the period and the holds stay; only the ceiling moves
		a.key.Limit = m.Limit
		ctx.Respond(&keyState{Key: a.key})
	}
}

func (a *keyActor) load(hash string) {
	a.hash = hash
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
	if err := a.loadVideoHolds(ctx); err != nil {
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

// reserve holds the worst case against the key's ceiling and forwards the
// rest to the account's actor, which answers the requester itself: one round
// trip for the whole reservation.
func (a *keyActor) reserve(ctx actor.Context, m *keyReserve) {
	refuse := func(err *shlyuz.Error) { ctx.Respond(&reserved{Err: err}) }
	if a.loadErr != nil {
		refuse(a.loadErr)
		return
	}
	if err := a.key.Usable(m.Now); err != nil {
		refuse(err)
		return
	}
	a.roll(m.Now)
	if old, ok := a.holds[m.GenID]; ok { // a retried request: replace its hold
		a.reserved -= old
		delete(a.holds, m.GenID)
	} else if rl := a.key.RateLimit; rl != nil { // a new call counts against the rate limit
		if st, ok := a.rate.Admit(*rl, m.Now); !ok {
			refuse(shlyuz.ErrRateLimitedKey(*rl, st))
			return
		}
	}
	if m.Fixed > 0 {
		a.reserveFixed(ctx, m)
		return
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
			refuse(shlyuz.ErrKeyLimitExceeded(*a.key.Limit, a.spent+a.reserved, a.periodEnd, afford, max(tokens, 1)))
			return
		}
	}
	account, err := a.deps.dir.PID(a.key.AccountID, KindAccount)
	if err != nil {
		refuse(shlyuz.ErrInternal(err))
		return
	}
	amount := m.Price.Charge(m.Prompt, tokens)
	a.holds[m.GenID] = amount
	a.reserved += amount
	ctx.RequestWithCustomSender(account, &acctReserve{
		GenID: m.GenID, KeyID: a.key.ID, KeyPID: directory.Detached(ctx.Self()), Prompt: m.Prompt, MaxTokens: m.MaxTokens,
		KeyTokens: tokens, KeyAmount: amount, Price: m.Price, Now: m.Now,
	}, ctx.Sender())
}
