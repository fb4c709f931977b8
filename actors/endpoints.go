package actors

import (
	"sort"

	shlyuz "github.com/shlyuz/shlyuz"
)

// RouteUpstreams is the configuration of every upstream that serves the
// model, in the order its route tries them; nil when no route serves it.
func (g *Gateway) RouteUpstreams(model string) []shlyuz.UpstreamConfig {
	_, ups := g.upstreamsFor(model, nil, true)
	out := make([]shlyuz.UpstreamConfig, 0, len(ups))
	for _, u := range ups {
		if u != nil {
			out = append(out, u.Config)
		}
	}
	return out
}

// UpstreamConfigs is the configuration of every upstream, sorted by name.
func (g *Gateway) UpstreamConfigs() []shlyuz.UpstreamConfig {
	out := make([]shlyuz.UpstreamConfig, 0, len(g.upstreams))
	for _, u := range g.upstreams {
		out = append(out, u.Config)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
