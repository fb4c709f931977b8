package shlyuz

import (
	"sort"
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
func (c *Catalog) Get(id string) (*PricedModel, bool) {
	m, ok := c.byID[id]
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
