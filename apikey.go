package shlyuz

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// KeyPrefix starts every Shlyuz API key.
const KeyPrefix = "sk-shz-v1-"

// Key is an API key as stored: only the hash of its secret is kept.
type Key struct {
	ID         string     `json:"id"`
	AccountID  string     `json:"account_id"`
	Name       string     `json:"name"`
	Hash       string     `json:"-"`
	Label      string     `json:"label"` // a masked form safe to show: sk-shz-v1-ab12...ef89
	Limit      *Credits   `json:"limit"` // nil: no ceiling
	LimitReset LimitReset `json:"limit_reset"`
	ExpiresAt  *time.Time `json:"expires_at"`
	RateLimit  *RateLimit `json:"rate_limit"` // nil: none
	// Management: the key manages the account's keys (/api/v1/keys) and never calls a model.
	Management bool `json:"management,omitempty"`
	// AllowedModels limits the models the key may call: model ids, and
	// "provider/" prefixes matching every model under them. Empty: any model.
	AllowedModels []string `json:"allowed_models,omitempty"`
	// WebChat marks the key the web area's chat spends through: one live
	// one per account, made by the web area only and never shown to or
	// changed through the API. It is found by this mark, never by its name.
	WebChat bool `json:"web_chat,omitempty"`
	// Disabled: the key is refused until enabled again; a revoked key
	// (RevokedAt) is refused for good.
	Disabled  bool       `json:"disabled,omitempty"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"` // the last change of name, ceiling, period or state
}

// NewKeySecret makes a fresh key: 256 bits from crypto/rand as 64 hex characters
// behind the prefix. It returns the plain key (shown once) and its hash (stored).
func NewKeySecret() (plain, hash string) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	plain = KeyPrefix + hex.EncodeToString(b[:])
	return plain, HashKey(plain)
}

// HashKey is the stored form of a key: SHA-256 in hex. The secret has 256 bits
// of entropy, so a fast hash suffices and lookups stay O(1).
func HashKey(plain string) string {
	// Every request hashes its key: the key is copied to, and the hex
	// written in, buffers on the stack, so the hash's string is the one
	// allocation.
	var in [128]byte
	sum := sha256.Sum256(append(in[:0], plain...))
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// LooksLikeKey reports whether s has the shape of a Shlyuz key.
func LooksLikeKey(s string) bool {
	return strings.HasPrefix(s, KeyPrefix) && len(s) == len(KeyPrefix)+64
}

// MaxKeyName is the longest name a key may have, in characters.
const MaxKeyName = 100

// KeyNameFits reports whether name may name a key: at most MaxKeyName
// characters and no control characters (PostgreSQL keeps no NUL in text).
func KeyNameFits(name string) bool {
	return utf8.RuneCountInString(name) <= MaxKeyName && strings.IndexFunc(name, unicode.IsControl) < 0
}

// MaskKey is the label of a key: its prefix, first and last four characters of the secret.
func MaskKey(plain string) string {
	if len(plain) < len(KeyPrefix)+8 {
		return KeyPrefix + "..."
	}
	s := plain[len(KeyPrefix):]
	return KeyPrefix + s[:4] + "..." + s[len(s)-4:]
}

// Expired reports whether the key has expired at now: a key is dead from its
// expires_at instant on.
func (k *Key) Expired(now time.Time) bool {
	return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)
}

// Live reports whether the key may be used at now: neither revoked,
// disabled nor expired.
func (k *Key) Live(now time.Time) bool { return k.Usable(now) == nil }

// Revoked reports whether the key was revoked.
func (k *Key) Revoked() bool { return k.RevokedAt != nil }

// Usable returns the error a request made with the key gets at now, or nil.
func (k *Key) Usable(now time.Time) *Error {
	switch {
	case k.Revoked():
		return ErrKeyRevoked()
	case k.Disabled:
		return ErrKeyDisabled()
	case k.Expired(now):
		return ErrKeyExpired()
	}
	return nil
}
