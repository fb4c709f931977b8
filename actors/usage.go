package actors

import (
	"context"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Spend sums for OpenRouter's account endpoints. Each first commits what this
// node's journal holds, so a charge the client has seen is counted; a charge
// queued on another node of a cluster is counted once its journal commits
// (within the journal interval).

// AccountSpend is what the account's charges add up to since the instant.
func (g *Gateway) AccountSpend(ctx context.Context, accountID string, since time.Time) (shlyuz.Credits, *shlyuz.Error) {
	if err := g.journal.Flush(ctx); err != nil {
		return 0, shlyuz.ErrInternal(err)
	}
	spent, err := g.store.AccountSpend(ctx, accountID, since)
	if err != nil {
		return 0, shlyuz.ErrInternal(err)
	}
	return spent, nil
}

// KeySpends is what the key's charges add up to since each instant.
func (g *Gateway) KeySpends(ctx context.Context, keyID string, since ...time.Time) ([]shlyuz.Credits, *shlyuz.Error) {
	if err := g.journal.Flush(ctx); err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	out := make([]shlyuz.Credits, len(since))
	for i, s := range since {
		spent, err := g.store.KeySpend(ctx, keyID, s)
		if err != nil {
			return nil, shlyuz.ErrInternal(err)
		}
		out[i] = spent
	}
	return out, nil
}

// Activity sums the account's generations per UTC day, model and upstream since the instant.
func (g *Gateway) Activity(ctx context.Context, accountID string, since time.Time) ([]shlyuz.ActivityRow, *shlyuz.Error) {
	if err := g.journal.Flush(ctx); err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	rows, err := g.store.Activity(ctx, accountID, since)
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	return rows, nil
}
