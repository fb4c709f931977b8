package actors

import (
	"slices"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// requireParameters applies provider.require_parameters: only the upstreams
// whose protocol carries every parameter the request sets may serve it
// (OpenRouter's semantics). With none left, missing names the parameters no
// upstream carries, or, when each is carried by some upstream but none
// carries them all, every parameter some upstream lacks.
func requireParameters(ups []*Upstream, c *ChatCall, model string) (kept []*Upstream, missing []string) {
	if !c.RequireParameters {
		return ups, nil
	}
	set := shlyuz.ParametersSet(c.Fields)
	if len(set) == 0 {
		return ups, nil
	}
	lacks := func(u *Upstream, p string) bool {
		return !shlyuz.Carries(u.Config.Protocol, model, u.Config.Parameters, p)
	}
	kept = make([]*Upstream, 0, len(ups))
	for _, u := range ups {
		if !slices.ContainsFunc(set, func(p string) bool { return lacks(u, p) }) {
			kept = append(kept, u)
		}
	}
	if len(kept) > 0 || len(ups) == 0 {
		return kept, nil
	}
	var someLack []string
	for _, p := range set {
		n := 0
		for _, u := range ups {
			if lacks(u, p) {
				n++
			}
		}
		if n == len(ups) {
			missing = append(missing, p)
		}
		if n > 0 {
			someLack = append(someLack, p)
		}
	}
	if len(missing) == 0 {
		missing = someLack
	}
	return kept, missing
}

// unsupportedParameters is the 400 of provider.require_parameters leaving none of the model's upstreams.
func unsupportedParameters(model string, missing []string) *shlyuz.Error {
	return shlyuz.ErrInvalidValue("provider.require_parameters",
		"provider.require_parameters: no upstream of %q supports every parameter of the request; unsupported: %s.",
		model, strings.Join(missing, ", "))
}
