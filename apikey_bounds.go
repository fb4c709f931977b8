package shlyuz

import (
	"strings"
	"time"
)

// KeyGrant is what a key made (or changed) by another key asks for: its
// ceiling (nil: none asked), the period of that ceiling, its models (empty:
// none asked) and its expiry (nil: none asked).
type KeyGrant struct {
	Limit         *Credits
	LimitReset    LimitReset
	AllowedModels []string
	ExpiresAt     *time.Time
}

// BoundGrant holds a grant within its maker: a key that manages keys can
// hand out no more than it has. left is what the maker's ceiling still
// allows in its period (nil: the maker has no ceiling). What the grant does
// not ask for is the maker's (the ceiling left, its models, its expiry);
// what it asks beyond the maker is a 403 naming the field:
//
//   - limit at most what the maker's ceiling has left;
//   - limit_reset no shorter than the maker's period (a child whose ceiling
//     renewed daily under a maker's monthly one would grant thirty times it);
//   - every allowed_models entry within the maker's list;
//   - expires_at no later than the maker's.
func BoundGrant(maker *Key, left *Credits, g *KeyGrant) *Error {
	if left != nil {
		switch {
		case g.Limit == nil:
			l := max(*left, 0)
			g.Limit = &l
		case *g.Limit > *left:
			return ErrBeyondMaker("limit", "limit %d is more than the %d credits the managing key's own ceiling has left.", *g.Limit, max(*left, 0))
		}
		if resetRank(g.LimitReset) < resetRank(maker.LimitReset) {
			return ErrBeyondMaker("limit_reset", "limit_reset %q renews sooner than the managing key's own ceiling (%q).",
				periodName(g.LimitReset), periodName(maker.LimitReset))
		}
	}
	if len(maker.AllowedModels) > 0 {
		if len(g.AllowedModels) == 0 {
			g.AllowedModels = append([]string(nil), maker.AllowedModels...)
		}
		for _, e := range g.AllowedModels {
			if !maker.Covers(e) {
				return ErrBeyondMaker("allowed_models", "allowed_models entry %q is outside the managing key's own allowed_models.", e)
			}
		}
	}
	if maker.ExpiresAt != nil {
		switch {
		case g.ExpiresAt == nil:
			at := *maker.ExpiresAt
			g.ExpiresAt = &at
		case g.ExpiresAt.After(*maker.ExpiresAt):
			return ErrBeyondMaker("expires_at", "expires_at is later than the managing key's own expiry (%s).", maker.ExpiresAt.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// Covers reports whether every model an allowed_models entry names is one
// the key may call: the key has no list, or lists the entry itself, or an
// entry ending in "/" is a prefix of it.
func (k *Key) Covers(entry string) bool {
	if len(k.AllowedModels) == 0 {
		return true
	}
	for _, e := range k.AllowedModels {
		if e == entry || (strings.HasSuffix(e, "/") && strings.HasPrefix(entry, e)) {
			return true
		}
	}
	return false
}

// resetRank orders periods from the shortest: a day, a week, a month, never.
func resetRank(r LimitReset) int {
	switch r {
	case ResetDay:
		return 1
	case ResetWeek:
		return 2
	case ResetMonth:
		return 3
	}
	return 4
}

func periodName(r LimitReset) string {
	if r == ResetNever {
		return "never"
	}
	return string(r)
}
