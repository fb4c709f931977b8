package actors

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The sorts provider.sort takes (OpenRouter's names).
const (
	SortPrice      = "price"
	SortLatency    = "latency"
	SortThroughput = "throughput"
)

// upstreamStats is what the gateway measured of an upstream's served calls:
// moving averages (each new call weighs a fifth) of the time to its reply
// or first event, and of its completion tokens per second.
type upstreamStats struct {
	latencyUS  atomic.Int64 // 0: never measured
	tokensPerS atomic.Int64 // in thousandths; 0: never measured
}

// statsTable holds every upstream's stats by name.
type statsTable struct{ m sync.Map }

func (t *statsTable) of(name string) *upstreamStats {
	if s, ok := t.m.Load(name); ok {
		return s.(*upstreamStats)
	}
	s, _ := t.m.LoadOrStore(name, &upstreamStats{})
	return s.(*upstreamStats)
}

func ewma(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		next := v
		if old > 0 {
			next = old + (v-old)/5
		}
		if a.CompareAndSwap(old, max(next, 1)) {
			return
		}
	}
}

// observe records a served call's time to its reply or first event.
func (t *statsTable) observeLatency(u *Upstream, d time.Duration) {
	if u != nil && d > 0 {
		ewma(&t.of(u.Config.Name).latencyUS, d.Microseconds())
	}
}

// observeThroughput records a finished call's completion tokens over its duration.
func (t *statsTable) observeThroughput(u *Upstream, tokens int64, d time.Duration) {
	if u != nil && tokens > 0 && d > 0 {
		ewma(&t.of(u.Config.Name).tokensPerS, tokens*1_000_000_000/max(d.Microseconds(), 1))
	}
}

// checkUpstreamNames refuses provider.only / provider.ignore names this
// gateway has no upstream for, naming the ones it has.
func (g *Gateway) checkUpstreamNames(field string, names []string) *shlyuz.Error {
	var unknown []string
	for _, n := range names {
		if _, ok := g.upstreams[n]; !ok {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	valid := make([]string, 0, len(g.upstreams))
	for n := range g.upstreams {
		valid = append(valid, n)
	}
	slices.Sort(valid)
	return shlyuz.ErrInvalidValue(field, "%s names upstreams this gateway does not have (%s); it has: %s.",
		field, strings.Join(unknown, ", "), strings.Join(valid, ", "))
}

// checkPrefs checks the client's provider preferences before anything is
// reserved; OpenRouter's provider slugs in them become the names of the
// upstreams the operator gave that slug.
func (g *Gateway) checkPrefs(c *ChatCall) *shlyuz.Error {
	c.Order, c.Only, c.Ignore = g.bySlug(c.Order), g.bySlug(c.Only), g.bySlug(c.Ignore)
	if err := g.checkUpstreamNames("provider.only", c.Only); err != nil {
		return err
	}
	if err := g.checkUpstreamNames("provider.ignore", c.Ignore); err != nil {
		return err
	}
	switch c.Sort {
	case "", SortPrice, SortLatency, SortThroughput:
		return nil
	}
	return shlyuz.ErrInvalidValue("provider.sort", "provider.sort is price, latency or throughput, not %q.", c.Sort)
}

// preferUpstreams applies provider.only, provider.ignore and provider.sort to
// the upstreams to try. A sort is stable: upstreams alike keep the route's
// (or provider.order's) order, and those never measured come after the
// measured ones.
func (g *Gateway) preferUpstreams(ups []*Upstream, c *ChatCall) []*Upstream {
	if len(c.Only) == 0 && len(c.Ignore) == 0 && c.Sort == "" && c.Policy.none() {
		return ups
	}
	out := make([]*Upstream, 0, len(ups))
	for _, u := range ups {
		if (len(c.Only) == 0 || slices.Contains(c.Only, u.Config.Name)) && !slices.Contains(c.Ignore, u.Config.Name) && c.Policy.meets(u) {
			out = append(out, u)
		}
	}
	key := func(u *Upstream) int64 { return 0 }
	switch c.Sort {
	case SortPrice: // the route's upstreams differ in price by their multiplier
		key = func(u *Upstream) int64 {
			m := u.Config.PriceMultiplier
			if m.Sign() == 0 {
				return 1_000_000
			}
			return m.MulInt(1_000_000).Ceil()
		}
	case SortLatency:
		key = func(u *Upstream) int64 {
			if v := g.stats.of(u.Config.Name).latencyUS.Load(); v > 0 {
				return v
			}
			return 1 << 62
		}
	case SortThroughput:
		key = func(u *Upstream) int64 {
			if v := g.stats.of(u.Config.Name).tokensPerS.Load(); v > 0 {
				return -v
			}
			return 1 << 62
		}
	}
	slices.SortStableFunc(out, func(a, b *Upstream) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// excludedAll is the 400 of provider.only / ignore leaving none of the model's upstreams.
func excludedAll(model string, routed []*Upstream) *shlyuz.Error {
	names := make([]string, len(routed))
	for i, u := range routed {
		names[i] = u.Config.Name
	}
	return shlyuz.ErrInvalidValue("provider", "provider.only and provider.ignore leave no upstream for %q; its upstreams are: %s.",
		model, strings.Join(names, ", "))
}

// bySlug replaces each of names that is no upstream's name but the slug
// of some (UpstreamConfig.Slug) by the names of those upstreams.
func (g *Gateway) bySlug(names []string) []string {
	var out []string
	for i, n := range names {
		if _, ok := g.upstreams[n]; ok {
			if out != nil {
				out = append(out, n)
			}
			continue
		}
		var named []string
		for name, u := range g.upstreams {
			if u.Config.Slug != "" && u.Config.Slug == n {
				named = append(named, name)
			}
		}
		if len(named) == 0 {
			if out != nil {
				out = append(out, n)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(names)+len(named)), names[:i]...)
		}
		slices.Sort(named)
		out = append(out, named...)
	}
	if out == nil {
		return names
	}
	return out
}

// Policy is OpenRouter's data and weights preferences of a request: each
// keeps only the upstreams the operator declared to meet it.
type Policy struct {
	DenyDataCollection bool     // provider.data_collection: "deny"
	ZDR                bool     // provider.zdr: true
	Quantizations      []string // provider.quantizations; "unknown" takes an upstream that declares none
}

func (p Policy) none() bool { return !p.DenyDataCollection && !p.ZDR && len(p.Quantizations) == 0 }

// meets reports whether the upstream meets every preference.
func (p Policy) meets(u *Upstream) bool { return p.failed(u) == "" }

// failed names the first preference the upstream does not meet, or "".
func (p Policy) failed(u *Upstream) string {
	switch {
	case p.DenyDataCollection && u.Config.DataCollection != "deny" && !u.Config.ZDR:
		return "provider.data_collection"
	case p.ZDR && !u.Config.ZDR:
		return "provider.zdr"
	case len(p.Quantizations) > 0:
		q := u.Config.Quantization
		if q == "" {
			q = "unknown"
		}
		if !slices.Contains(p.Quantizations, q) {
			return "provider.quantizations"
		}
	}
	return ""
}

// unmet names a preference that no upstream of routed meets (the first
// failed of each), or "" when some upstream meets them all.
func (p Policy) unmet(routed []*Upstream) string {
	if p.none() {
		return ""
	}
	name := ""
	for _, u := range routed {
		f := p.failed(u)
		if f == "" {
			return ""
		}
		if name == "" {
			name = f
		}
	}
	return name
}

// policyUnmet is the 400 of a data or weights preference no upstream of the model meets.
func policyUnmet(model, pref string) *shlyuz.Error {
	return shlyuz.ErrInvalidValue(pref, "%s: no upstream of %q meets it.", pref, model)
}
