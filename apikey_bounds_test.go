package shlyuz

import (
	"fmt"
	"testing"
	"time"
)

// BoundGrant: what a grant leaves out is its maker's, what it asks beyond
// its maker is a 403 naming the field.
func TestBoundGrant(t *testing.T) {
	hour := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	later := hour.Add(time.Hour)
	c := func(v Credits) *Credits { return &v }
	limited := Key{Limit: c(1_000), LimitReset: ResetMonth, AllowedModels: []string{"openai/", "anthropic/claude-sonnet-4"}, ExpiresAt: &hour}
	tests := []struct {
		name  string
		maker Key
		left  *Credits
		in    KeyGrant
		field string   // "": allowed
		limit *Credits // after the call, when allowed
		reset LimitReset
		// models and expiry after the call, when allowed
		models  string
		expires *time.Time
	}{
		{"an unbounded maker grants anything", Key{}, nil, KeyGrant{Limit: c(1 << 50)}, "", c(1 << 50), ResetNever, "[]", nil},
		{"nothing asked: the maker's bounds", limited, c(700), KeyGrant{}, "", c(700), ResetNever, "[openai/ anthropic/claude-sonnet-4]", &hour},
		{"within every bound", limited, c(700), KeyGrant{Limit: c(700), LimitReset: ResetMonth, AllowedModels: []string{"openai/gpt-4o"}, ExpiresAt: &hour},
			"", c(700), ResetMonth, "[openai/gpt-4o]", &hour},
		{"a ceiling above what is left", limited, c(700), KeyGrant{Limit: c(701)}, "limit", nil, "", "", nil},
		{"a ceiling of 10^15", limited, c(700), KeyGrant{Limit: c(1_000_000_000_000_000)}, "limit", nil, "", "", nil},
		{"an overspent maker leaves 0", limited, c(-5), KeyGrant{}, "", c(0), ResetNever, "[openai/ anthropic/claude-sonnet-4]", &hour},
		{"a shorter period", limited, c(700), KeyGrant{Limit: c(10), LimitReset: ResetDay}, "limit_reset", nil, "", "", nil},
		{"a model outside", limited, c(700), KeyGrant{AllowedModels: []string{"openai/gpt-4o", "google/gemini"}}, "allowed_models", nil, "", "", nil},
		{"a wider prefix", limited, c(700), KeyGrant{AllowedModels: []string{"anthropic/"}}, "allowed_models", nil, "", "", nil},
		{"a later expiry", limited, c(700), KeyGrant{ExpiresAt: &later}, "expires_at", nil, "", "", nil},
		{"no ceiling on the maker: any period", Key{AllowedModels: []string{"a/b"}}, nil, KeyGrant{Limit: c(5), LimitReset: ResetDay}, "", c(5), ResetDay, "[a/b]", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.in
			err := BoundGrant(&tc.maker, tc.left, &g)
			if tc.field != "" {
				if err == nil || err.Status != 403 || err.Param == nil || *err.Param != tc.field {
					t.Fatalf("BoundGrant = %+v; want a 403 naming %s", err, tc.field)
				}
				return
			}
			if err != nil {
				t.Fatalf("BoundGrant = %v; want nil", err)
			}
			if fmt.Sprint(g.Limit == nil, deref(g.Limit)) != fmt.Sprint(tc.limit == nil, deref(tc.limit)) || g.LimitReset != tc.reset ||
				fmt.Sprint(g.AllowedModels) != tc.models || fmt.Sprint(g.ExpiresAt) != fmt.Sprint(tc.expires) {
				t.Fatalf("grant = limit %v reset %q models %v expires %v", deref(g.Limit), g.LimitReset, g.AllowedModels, g.ExpiresAt)
			}
		})
	}
}

func deref(c *Credits) Credits {
	if c == nil {
		return -1
	}
	return *c
}
