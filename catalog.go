package shlyuz

import "sort"

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
	for _, m := range c.byID {
		c.list = append(c.list, m)
	}
	sort.Slice(c.list, func(i, j int) bool { return c.list[i].ID < c.list[j].ID })
	return c
}

// Get finds a model by id.
func (c *Catalog) Get(id string) (*PricedModel, bool) {
	m, ok := c.byID[id]
	return m, ok
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
