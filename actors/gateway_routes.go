package actors

import (
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// noUpstream is the error of a call of the model no upstream may serve: the
// client's provider.order names only upstreams this gateway does not have,
// or no upstream of the gateway serves the model.
func (g *Gateway) noUpstream(model string, order []string) *shlyuz.Error {
	var unknown []string
	for _, o := range order {
		if _, ok := g.upstreams[o]; !ok {
			unknown = append(unknown, o)
		}
	}
	if len(unknown) > 0 && g.Routable(model) {
		return shlyuz.ErrInvalidValue("provider.order", "provider.order names upstreams this gateway does not have (%s), and allows no other for %q.",
			strings.Join(unknown, ", "), model)
	}
	return shlyuz.ErrModelUnavailable(model)
}

// Routable reports whether a route of this gateway names an upstream for the
// model: the keyed model list shows only those.
func (g *Gateway) Routable(model string) bool {
	r := shlyuz.PickRoute(g.routes, model)
	return r != nil && len(r.Upstreams) > 0
}
