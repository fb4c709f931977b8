package actors

import (
	"context"
	"errors"

	shlyuz "github.com/shlyuz/shlyuz"
)

// left is what the key's ceiling still allows this period (nil: no ceiling).
func (st *KeyStatus) left() *shlyuz.Credits {
	if st.Key.Limit == nil {
		return nil
	}
	l := *st.Key.Limit - st.Spent - st.Reserved
	return &l
}

// CreateKeyBy makes a key for the account of maker, a management key, within
// maker's own bounds (shlyuz.BoundGrant): what the spec leaves out is the
// maker's, what it asks beyond the maker is a 403 naming the field.
func (g *Gateway) CreateKeyBy(ctx context.Context, maker *KeyStatus, s KeySpec) (string, shlyuz.Key, *shlyuz.Error) {
	gr := shlyuz.KeyGrant{Limit: s.Limit, LimitReset: s.LimitReset, AllowedModels: s.AllowedModels, ExpiresAt: s.ExpiresAt}
	if err := shlyuz.BoundGrant(&maker.Key, maker.left(), &gr); err != nil {
		return "", shlyuz.Key{}, err
	}
	s.Limit, s.AllowedModels, s.ExpiresAt = gr.Limit, gr.AllowedModels, gr.ExpiresAt
	s.Management, s.WebChat = false, false // a management key makes API keys only
	return g.CreateKey(ctx, maker.Key.AccountID, s)
}

// KeyChange is what a change of a key asks for; nil fields stay as they are.
type KeyChange struct {
	Name       *string
	Disabled   *bool
	SetLimit   bool            // Limit is the new ceiling (nil: none)
	Limit      *shlyuz.Credits // with SetLimit
	LimitReset *shlyuz.LimitReset
}

// UpdateKey changes a key's name, ceiling, period or disabled state, in the
// store and in its account's live activation. maker, when not nil, is the
// management key asking: a ceiling or period it sets is bounded by its own
// as a new key's would be. A revoked key is not found.
func (g *Gateway) UpdateKey(ctx context.Context, maker *KeyStatus, keyID string, ch KeyChange) (shlyuz.Key, *shlyuz.Error) {
	k, err := g.store.Key(ctx, keyID)
	if errors.Is(err, shlyuz.ErrNoRows) || (err == nil && k.Revoked()) {
		return shlyuz.Key{}, shlyuz.ErrNotFound("Key " + keyID)
	}
	if err != nil {
		return shlyuz.Key{}, shlyuz.ErrInternal(err)
	}
	next := k
	if ch.Name != nil {
		if !shlyuz.KeyNameFits(*ch.Name) {
			return shlyuz.Key{}, shlyuz.ErrInvalidValue("name", "A key's name has at most %d characters and no control characters.", shlyuz.MaxKeyName)
		}
		next.Name = *ch.Name
	}
	if ch.Disabled != nil {
		next.Disabled = *ch.Disabled
	}
	if ch.SetLimit {
		if ch.Limit != nil {
			if *ch.Limit < 0 {
				return shlyuz.Key{}, shlyuz.ErrInvalidValue("limit", "limit is a whole number of credits, 0 or more, or null.")
			}
			l := *ch.Limit
			next.Limit = &l
		} else {
			next.Limit = nil
		}
	}
	if ch.LimitReset != nil {
		next.LimitReset = *ch.LimitReset
	}
	if maker != nil && (ch.SetLimit || ch.LimitReset != nil) {
		gr := shlyuz.KeyGrant{Limit: next.Limit, LimitReset: next.LimitReset}
		if err := shlyuz.BoundGrant(&maker.Key, maker.left(), &gr); err != nil {
			return shlyuz.Key{}, err
		}
		next.Limit = gr.Limit
	}
	if next.LimitReset != shlyuz.ResetNever && next.Limit == nil {
		field := "limit"
		if !ch.SetLimit {
			field = "limit_reset"
		}
		return shlyuz.Key{}, shlyuz.ErrInvalidValue(field, "A key whose limit resets (%s) needs a limit.", next.LimitReset)
	}
	now := g.now().UTC()
	next.UpdatedAt = &now
	if err := g.store.UpdateKey(ctx, next); err != nil {
		return shlyuz.Key{}, shlyuz.ErrInternal(err)
	}
	res, rerr := g.request(k.AccountID, KindAccount, &keyUpdate{Key: next, Now: now})
	if rerr != nil {
		return shlyuz.Key{}, shlyuz.AsError(rerr)
	}
	g.recallSlices(k.AccountID, k.ID, res)
	return next, nil
}
