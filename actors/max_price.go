package actors

import (
	shlyuz "github.com/shlyuz/shlyuz"
)

// MaxPrice is OpenRouter's provider.max_price: the most the client pays,
// in US dollars per million prompt or completion tokens and per request;
// an unset part sets no bound. An upstream whose price for the model (its
// multiplier applied) is above a part is not tried.
type MaxPrice struct {
	Prompt, Completion, Request *shlyuz.Decimal
}

// allows reports whether the price is within every bound, each turned into
// micro-credits at the pricing's rate and K as list prices are
// (shlyuz.DerivePrice), so a bound equal to a list price allows it.
func (mp *MaxPrice) allows(pr shlyuz.Price, p shlyuz.Pricing) bool {
	if mp == nil {
		return true
	}
	f := p.Rate.Mul(p.K).MulInt(shlyuz.CreditsPerRuble) // micro-credits a token per USD per million tokens
	within := func(bound *shlyuz.Decimal, micro int64, perRequest bool) bool {
		if bound == nil {
			return true
		}
		b := bound.Mul(f)
		if perRequest {
			b = b.MulInt(1_000_000)
		}
		limit, ok := b.CeilChecked()
		return !ok || micro <= limit
	}
	return within(mp.Prompt, pr.PromptMicro, false) && within(mp.Completion, pr.CompletionMicro, false) &&
		within(mp.Request, pr.RequestMicro, true)
}

// withinMaxPrice keeps the upstreams whose price for the model is within
// the call's max_price; cut says whether it left one out.
func (g *Gateway) withinMaxPrice(ups []*Upstream, m *shlyuz.PricedModel, c *ChatCall) (kept []*Upstream, cut bool) {
	if c.MaxPrice == nil {
		return ups, false
	}
	p := g.Catalog().Pricing
	kept = make([]*Upstream, 0, len(ups))
	for _, u := range ups {
		if c.MaxPrice.allows(m.Price.Scale(u.Config.PriceMultiplier), p) {
			kept = append(kept, u)
		}
	}
	return kept, len(kept) < len(ups)
}
