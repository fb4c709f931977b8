package actors

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"strconv"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// KeySpec is what an account asks of a new key.
type KeySpec struct {
	Name       string
	Limit      *shlyuz.Credits // nil: no ceiling
	LimitReset shlyuz.LimitReset
	ExpiresAt  *time.Time
	RateLimit  *shlyuz.RateLimit // nil: the gateway's default
	Management bool              // a management key: manages keys, calls no model
	// AllowedModels: model ids and "provider/" prefixes the key may call; empty: any.
	AllowedModels []string
	// WebChat: the web area's chat key of the account (made by the web area only).
	WebChat bool
}

// CreateKey makes a key for an account (the operator API and the web area
// both make keys here) and returns the plain key, which is never kept. An
// account holds at most Options.MaxKeys keys that are not revoked: past it,
// a 403.
func (g *Gateway) CreateKey(ctx context.Context, accountID string, s KeySpec) (string, shlyuz.Key, *shlyuz.Error) {
	if s.Limit != nil && *s.Limit < 0 {
		return "", shlyuz.Key{}, shlyuz.ErrInvalidValue("limit", "limit is a whole number of credits, 0 or more.")
	}
	now := g.now()
	if s.ExpiresAt != nil && !s.ExpiresAt.After(now) {
		return "", shlyuz.Key{}, shlyuz.ErrInvalidValue("expires_at", "expires_at must be in the future.")
	}
	if err := shlyuz.ValidateAllowedModels(s.AllowedModels); err != nil {
		return "", shlyuz.Key{}, err
	}
	plain, hash := shlyuz.NewKeySecret()
	k := shlyuz.Key{ID: newKeyID(now.Unix()), AccountID: accountID, Name: s.Name, Hash: hash, Label: shlyuz.MaskKey(plain),
		Limit: s.Limit, LimitReset: s.LimitReset, ExpiresAt: s.ExpiresAt, RateLimit: s.RateLimit, Management: s.Management, AllowedModels: s.AllowedModels,
		WebChat: s.WebChat, CreatedAt: now.UTC()}
	err := g.store.CreateKey(ctx, k, g.maxKeys)
	if errors.Is(err, shlyuz.ErrLimitReached) {
		return "", shlyuz.Key{}, shlyuz.ErrTooManyKeys(g.maxKeys)
	}
	if err != nil {
		return "", shlyuz.Key{}, shlyuz.ErrInternal(err)
	}
	return plain, k, nil
}

// SetKeyLimit changes a key's ceiling (nil: none) in the store and in its
// account's live activation, at once on every node; the period and its spend stay.
func (g *Gateway) SetKeyLimit(ctx context.Context, keyID string, limit *shlyuz.Credits) *shlyuz.Error {
	if limit != nil && *limit < 0 {
		return shlyuz.ErrInvalidValue("limit", "limit is a whole number of credits, 0 or more.")
	}
	k, err := g.store.Key(ctx, keyID)
	if errors.Is(err, shlyuz.ErrNoRows) {
		return shlyuz.ErrNotFound("Key " + keyID)
	}
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	if err := g.store.SetKeyLimit(ctx, keyID, limit); err != nil {
		return shlyuz.ErrInternal(err)
	}
	res, err := g.request(k.AccountID, KindAccount, &keyLimit{KeyID: k.ID, Limit: limit})
	if err != nil {
		return shlyuz.AsError(err)
	}
	g.recallSlices(k.AccountID, k.ID, res)
	return nil
}

// Refund takes back what an acquirer's refund returned to the payer, durably,
// once per refund id: an adjustment entry in the ledger (package and bought
// deltas, 0 or negative).
func (g *Gateway) Refund(accountID string, packageDelta, boughtDelta shlyuz.Credits, refundID string) (*shlyuz.Balance, bool, *shlyuz.Error) {
	e := shlyuz.LedgerEntry{ID: "refund-" + accountID + "-" + refundID, Kind: shlyuz.EntryAdjustment,
		PackageDelta: min(packageDelta, 0), BoughtDelta: min(boughtDelta, 0)}
	return g.applyEntry(accountID, &acctApply{Entry: e, Now: g.now()})
}

var keyIDEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

func newKeyID(unix int64) string {
	var b [15]byte
	_, _ = rand.Read(b[:])
	return "key-" + strconv.FormatInt(unix, 10) + "-" + keyIDEncoding.EncodeToString(b[:])
}
