package shlyuz

import (
	"sort"
	"strings"
	"time"
)

// PricedModel is a catalog model with its price in credits under the current pricing.
type PricedModel struct {
	Model
	Price Price
	life  lifeTimes
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
	dated   bool // some model has a retirement date: List filters
	Pricing Pricing
	// Clock tells the time that decides which models are retired; nil is
	// time.Now (tests set another).
	Clock func() time.Time
}

// NewCatalog prices the models under p. Later models with the same id replace earlier ones.
func NewCatalog(models []Model, p Pricing) *Catalog {
	c := &Catalog{byID: make(map[string]*PricedModel, len(models)), Pricing: p}
	built := time.Now()
	for _, m := range models {
		if m.Created <= 0 { // OpenAI's Model schema requires it
			m.Created = DefaultCreated
		}
		c.byID[m.ID] = &PricedModel{Model: m, Price: m.PriceUnder(p), life: life(&m, built)}
	}
	c.list = make([]*PricedModel, 0, len(c.byID))
	for _, m := range c.byID {
		c.list = append(c.list, m)
		c.dated = c.dated || !m.life.retires.IsZero()
	}
	sort.Slice(c.list, func(i, j int) bool { return c.list[i].ID < c.list[j].ID })
	c.byAlias = map[string]*PricedModel{}
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

// Now is the catalog's time.
func (c *Catalog) Now() time.Time {
	if c.Clock != nil {
		return c.Clock()
	}
	return time.Now()
}

// Get finds a model that is sold by id. A retired model is not, unless the
// operator chose to serve it by its successor: Get then gives the successor
// (one step; a retired successor is not followed further).
//
// id is a catalog id or a name the model's provider gives it (Aliases):
// "claude-sonnet-4-5-20250929", "gpt-5", "anthropic/claude-sonnet-4-5", or
// an alias with a release date the catalog does not list yet
// ("claude-opus-4-8-20261101").
func (c *Catalog) Get(id string) (*PricedModel, bool) {
	m, ok := c.byID[id]
	if !ok {
		m, ok = c.aliased(id)
	}
	if !ok || m.life.retires.IsZero() {
		return m, ok
	}
	now := c.Now()
	if !m.Retired(now) {
		return m, true
	}
	if m.ServeSuccessor {
		if s, ok := c.byID[m.Successor]; ok && !s.Retired(now) {
			return s, true
		}
	}
	return nil, false
}

// Missing is the error for an id Get did not find: 410 for a retired model
// (naming its successor), 404 for one the catalog never had.
func (c *Catalog) Missing(id string) *Error {
	if m, ok := c.byID[id]; ok && m.Retired(c.Now()) {
		return ErrModelRetired(m)
	}
	return ErrModelNotFound(id)
}

// Lookup is Get with Missing's error.
func (c *Catalog) Lookup(id string) (*PricedModel, *Error) {
	if m, ok := c.Get(id); ok {
		return m, nil
	}
	return nil, c.Missing(id)
}

// Retired is the record of a model that exists but is retired.
func (c *Catalog) Retired(id string) (*PricedModel, bool) {
	m, ok := c.byID[id]
	if !ok || !m.Retired(c.Now()) {
		return nil, false
	}
	return m, true
}

// List is every model that is sold, sorted by id (retired ones left out).
func (c *Catalog) List() []*PricedModel {
	if !c.dated {
		return c.list
	}
	now := c.Now()
	out := make([]*PricedModel, 0, len(c.list))
	for _, m := range c.list {
		if !m.Retired(now) {
			out = append(out, m)
		}
	}
	return out
}

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

// aliased is the model one of whose Aliases id is, with or without a
// provider prefix or a release date.
func (c *Catalog) aliased(id string) (*PricedModel, bool) {
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
