package shlyuz

import (
	"sort"
	"strings"
)

// PricedModel is a catalog model with its price in credits under the current pricing.
type PricedModel struct {
	Model
	Price Price
}

// DefaultCreated dates a model nobody dated (an operator's, in the config or
// through the admin API): 2026-01-01T00:00:00Z, the catalog's epoch.
const DefaultCreated int64 = 1767225600

// Catalog is the set of models clients may call, priced. It is immutable:
// a change of pricing or overrides builds a new one.
type Catalog struct {
	byID    map[string]*PricedModel
	byAlias map[string]*PricedModel // Model.Aliases, lower case
	list    []*PricedModel
	Pricing Pricing
}

// NewCatalog prices the models under p. Later models with the same id replace earlier ones.
func NewCatalog(models []Model, p Pricing) *Catalog {
	c := &Catalog{byID: make(map[string]*PricedModel, len(models)), Pricing: p}
	for _, m := range models {
		if m.Created <= 0 { // OpenAI's Model schema requires it
			m.Created = DefaultCreated
		}
		c.byID[m.ID] = &PricedModel{Model: m, Price: m.PriceUnder(p)}
	}
	c.list = make([]*PricedModel, 0, len(c.byID))
	c.byAlias = map[string]*PricedModel{}
	for _, m := range c.byID {
		c.list = append(c.list, m)
	}
	sort.Slice(c.list, func(i, j int) bool { return c.list[i].ID < c.list[j].ID })
	claimed := map[string]bool{}
	for _, m := range c.list { // an alias two models claim (an operator's override) names neither
		for _, a := range m.Aliases {
			a = strings.ToLower(a)
			if _, isID := c.byID[a]; isID || claimed[a] {
				delete(c.byAlias, a)
				continue
			}
			claimed[a] = true
			c.byAlias[a] = m
		}
	}
	return c
}

// Get finds a model by id, or by a name its provider gives it (Aliases):
// "claude-sonnet-4-5-20250929", "gpt-5", "anthropic/claude-sonnet-4-5", or
// an alias with a release date the catalog does not list yet
// ("claude-opus-4-8-20261101").
func (c *Catalog) Get(id string) (*PricedModel, bool) {
	if m, ok := c.byID[id]; ok {
		return m, true
	}
	name := strings.ToLower(id)
	prefix, rest, prefixed := strings.Cut(name, "/")
	if prefixed {
		name = rest
	}
	m, ok := c.byAlias[name]
	if !ok {
		if undated, dated := withoutDate(name); dated {
			m, ok = c.byAlias[undated]
		}
	}
	if !ok || prefixed && m.Provider() != prefix {
		return nil, false
	}
	return m, true
}

// withoutDate is name without a release date at its end ("-20250929",
// "-2025-08-07", "@20251001"), and whether it had one.
func withoutDate(name string) (string, bool) {
	digits := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	n := len(name)
	if n > 9 && (name[n-9] == '-' || name[n-9] == '@') && digits(name[n-8:]) {
		return name[:n-9], true
	}
	if n > 11 && name[n-11] == '-' && name[n-6] == '-' && name[n-3] == '-' &&
		digits(name[n-10:n-6]) && digits(name[n-5:n-3]) && digits(name[n-2:]) {
		return name[:n-11], true
	}
	return name, false
}

// List is every model, sorted by id.
func (c *Catalog) List() []*PricedModel { return c.list }

// MergeModels applies overrides to base: an override with a known id replaces
// that model, a new id adds one.
func MergeModels(base, overrides []Model) []Model {
	out := make([]Model, 0, len(base)+len(overrides))
	idx := make(map[string]int, len(base))
	for _, m := range base {
		idx[m.ID] = len(out)
		out = append(out, m)
	}
	for _, o := range overrides {
		if i, ok := idx[o.ID]; ok {
			out[i] = o
			continue
		}
		idx[o.ID] = len(out)
		out = append(out, o)
	}
	return out
}
