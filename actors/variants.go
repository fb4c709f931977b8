package actors

import (
	"encoding/json"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// OpenRouter's model variants: a suffix of the model id that changes how
// the call is served, on every model.
const (
	VariantNitro    = "nitro"    // the fastest upstreams first (provider.sort throughput)
	VariantFloor    = "floor"    // the cheapest upstreams first (provider.sort price)
	VariantFree     = "free"     // the model at no charge: only a model whose price is zero
	VariantThinking = "thinking" // reasoning on
	VariantOnline   = "online"   // web search
)

// variantOf looks up id in the catalog, or, when it is not there, as a
// model id with a variant suffix: the model, and the call changed as the
// variant says. A variant the gateway cannot serve is an error naming it.
func variantOf(cat *shlyuz.Catalog, id string, c *ChatCall) (*shlyuz.PricedModel, error) {
	if m, ok := cat.Get(id); ok {
		return m, nil
	}
	base, variant, cut := strings.Cut(id, ":")
	if i := strings.LastIndexByte(id, ':'); i >= 0 {
		base, variant, cut = id[:i], id[i+1:], true
	}
	m, ok := cat.Get(base)
	if !cut || !ok {
		return nil, cat.Missing(id)
	}
	switch variant {
	case VariantNitro:
		if c.Sort == "" {
			c.Sort = SortThroughput
		}
	case VariantFloor:
		if c.Sort == "" {
			c.Sort = SortPrice
		}
	case VariantFree:
		if m.Price.PromptMicro != 0 || m.Price.CompletionMicro != 0 || m.Price.RequestMicro != 0 {
			return nil, shlyuz.ErrInvalidValue("model", "The model %q has no free variant here: it is priced.", base)
		}
	case VariantThinking:
		if r, set := c.Fields["reasoning"]; c.Fields != nil && (!set || string(r) == "null") {
			c.Fields["reasoning"] = json.RawMessage(`{"enabled":true}`)
		}
	case VariantOnline:
		if c.Web == nil {
			c.Web = &WebPlugin{Field: "model"}
		}
	default:
		return nil, cat.Missing(id)
	}
	return m, nil
}
