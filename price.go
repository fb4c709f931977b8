package shlyuz

// MicroPerCredit is the fixed-point scale of per-token prices: a price is held
// in micro-credits (1/1,000,000 credit) per token, so credits per 1k tokens are
// exact to three decimals.
const MicroPerCredit int64 = 1_000_000

// USDPrice is a model's price at its upstream, in US dollars per million tokens
// (and per request for RequestFee). The parts in PriceParts are optional: an
// unset part bills as plain prompt or completion tokens.
type USDPrice struct {
	PromptPerMTok     Decimal `json:"prompt_usd_per_mtok" yaml:"prompt_usd_per_mtok"`
	CompletionPerMTok Decimal `json:"completion_usd_per_mtok" yaml:"completion_usd_per_mtok"`
	PriceParts        `yaml:",inline"`
}

// RUBPrice is a model's price at an upstream that bills in rubles (GigaChat,
// YandexGPT), in rubles per million tokens. No exchange rate applies to it.
type RUBPrice struct {
	PromptPerMTok     Decimal `json:"prompt_rub_per_mtok" yaml:"prompt_rub_per_mtok"`
	CompletionPerMTok Decimal `json:"completion_rub_per_mtok" yaml:"completion_rub_per_mtok"`
	PriceParts        `yaml:",inline"`
}

// PriceParts are the parts of a provider's bill besides plain prompt and
// completion tokens, in the currency of the price that holds them, per
// million tokens (RequestFee: per request). Nil: not priced apart, the
// tokens bill as plain prompt (input parts) or completion (output parts).
type PriceParts struct {
	CacheReadPerMTok    *Decimal `json:"cache_read_per_mtok,omitempty" yaml:"cache_read_per_mtok"`
	CacheWritePerMTok   *Decimal `json:"cache_write_per_mtok,omitempty" yaml:"cache_write_per_mtok"`       // a 5-minute cache write (Anthropic), or the only kind
	CacheWrite1hPerMTok *Decimal `json:"cache_write_1h_per_mtok,omitempty" yaml:"cache_write_1h_per_mtok"` // a 1-hour cache write (Anthropic)
	ReasoningPerMTok    *Decimal `json:"reasoning_per_mtok,omitempty" yaml:"reasoning_per_mtok"`
	AudioInPerMTok      *Decimal `json:"audio_input_per_mtok,omitempty" yaml:"audio_input_per_mtok"`
	AudioOutPerMTok     *Decimal `json:"audio_output_per_mtok,omitempty" yaml:"audio_output_per_mtok"`
	ImageInPerMTok      *Decimal `json:"image_input_per_mtok,omitempty" yaml:"image_input_per_mtok"`
	ImageOutPerMTok     *Decimal `json:"image_output_per_mtok,omitempty" yaml:"image_output_per_mtok"`
	RequestFee          *Decimal `json:"request,omitempty" yaml:"request"` // per request, whatever its tokens
	// WebSearch is the fee of one web search the upstream runs for the
	// request (Anthropic's web search tool, OpenAI's search models, Gemini's
	// grounding), or the gateway runs for it (the web plugin).
	WebSearch *Decimal `json:"web_search,omitempty" yaml:"web_search"`
	// LongContext: every part is dearer when the prompt is above a size
	// (Gemini 2.5 Pro and Claude Sonnet above 200k tokens).
	LongContext *LongContextPrice `json:"long_context,omitempty" yaml:"long_context"`
}

// LongContextPrice is the price of a request whose prompt has more than
// AbovePromptTokens tokens: it replaces every part of the base price
// (prompt and completion must be set; unset parts follow them).
type LongContextPrice struct {
	AbovePromptTokens int64   `json:"above_prompt_tokens" yaml:"above_prompt_tokens"`
	PromptPerMTok     Decimal `json:"prompt_per_mtok" yaml:"prompt_per_mtok"`
	CompletionPerMTok Decimal `json:"completion_per_mtok" yaml:"completion_per_mtok"`
	PriceParts        `yaml:",inline"`
}

// Pricing is what GET /api/pricing returns: the exchange rate in rubles per US
// dollar and the coefficient K applied on top of upstream prices.
type Pricing struct {
	Rate Decimal `json:"rate"`
	K    Decimal `json:"K"`
}

// Price is a model's price in micro-credits per token of each kind (and per
// request for RequestMicro), derived once from its list price, the rate and
// K, and used for every charge. Every part is set: a part the list does not
// price apart holds the plain prompt or completion price.
type Price struct {
	PromptMicro       int64
	CompletionMicro   int64
	CacheReadMicro    int64
	CacheWriteMicro   int64
	CacheWrite1hMicro int64
	ReasoningMicro    int64
	AudioInMicro      int64
	AudioOutMicro     int64
	ImageInMicro      int64
	ImageOutMicro     int64
	RequestMicro      int64
	WebSearchMicro    int64 // per search
	// LongAbove, when above zero, is the prompt size above which Long prices
	// the whole request.
	LongAbove int64
	Long      *Price
}

// DerivePrice applies invariant 6: credits_per_1k = usd_per_1k × rate × K × 100,000,
// rounded up to a whole micro-credit per token.
func DerivePrice(usd USDPrice, p Pricing) Price {
	f := p.Rate.Mul(p.K)
	return deriveParts(usd.PromptPerMTok, usd.CompletionPerMTok, &usd.PriceParts, f)
}

// DeriveRUBPrice is DerivePrice for a price in rubles: credits_per_1k = rub_per_1k × K × 100,000.
func DeriveRUBPrice(rub RUBPrice, p Pricing) Price {
	return deriveParts(rub.PromptPerMTok, rub.CompletionPerMTok, &rub.PriceParts, p.K)
}

// deriveParts turns list prices per million tokens into micro-credits per
// token, f being the rubles one unit of the list's currency is sold for.
func deriveParts(prompt, completion Decimal, pp *PriceParts, f Decimal) Price {
	perToken := func(perMTok Decimal) int64 {
		// list price per token × f × credits per ruble × micro per credit
		v, ok := perMTok.Mul(f).MulInt(CreditsPerRuble).MulInt(MicroPerCredit).Quo(1_000_000).CeilChecked()
		if !ok || v < 0 {
			return maxPartMicro
		}
		return min(v, maxPartMicro)
	}
	or := func(d *Decimal, fallback int64) int64 {
		if d == nil {
			return fallback
		}
		return perToken(*d)
	}
	pr := Price{PromptMicro: perToken(prompt), CompletionMicro: perToken(completion)}
	pr.CacheReadMicro = or(pp.CacheReadPerMTok, pr.PromptMicro)
	pr.CacheWriteMicro = or(pp.CacheWritePerMTok, pr.PromptMicro)
	pr.CacheWrite1hMicro = or(pp.CacheWrite1hPerMTok, pr.CacheWriteMicro)
	pr.ReasoningMicro = or(pp.ReasoningPerMTok, pr.CompletionMicro)
	pr.AudioInMicro = or(pp.AudioInPerMTok, pr.PromptMicro)
	pr.AudioOutMicro = or(pp.AudioOutPerMTok, pr.CompletionMicro)
	pr.ImageInMicro = or(pp.ImageInPerMTok, pr.PromptMicro)
	pr.ImageOutMicro = or(pp.ImageOutPerMTok, pr.CompletionMicro)
	if pp.RequestFee != nil { // per request, not per million
		pr.RequestMicro = perToken(pp.RequestFee.MulInt(1_000_000))
	}
	if pp.WebSearch != nil { // per search
		pr.WebSearchMicro = perToken(pp.WebSearch.MulInt(1_000_000))
	}
	if lc := pp.LongContext; lc != nil && lc.AbovePromptTokens > 0 {
		long := deriveParts(lc.PromptPerMTok, lc.CompletionPerMTok, &lc.PriceParts, f)
		long.LongAbove, long.Long = 0, nil // one tier
		pr.LongAbove, pr.Long = lc.AbovePromptTokens, &long
	}
	return pr
}

// maxPartMicro bounds one part of a price (10^12 micro-credits, a million
// credits a token): a price past it is an operator's typo, and keeping parts
// below it keeps every product of a part and a token count checkable.
const maxPartMicro int64 = 1_000_000_000_000

// CreditsPer1KPrompt is the published price of 1,000 prompt tokens in credits.
func (p Price) CreditsPer1KPrompt() Decimal {
	return NewDecimalFrac(p.PromptMicro*1000, MicroPerCredit)
}

// CreditsPer1KCompletion is the published price of 1,000 completion tokens in credits.
func (p Price) CreditsPer1KCompletion() Decimal {
	return NewDecimalFrac(p.CompletionMicro*1000, MicroPerCredit)
}

// Charge is the price of the given plain prompt and completion tokens,
// rounded up to a whole credit (media priced by tokens; chat uses Bill).
// An overflow saturates.
func (p Price) Charge(promptTokens, completionTokens int64) Credits {
	micro := AddChecked(MulChecked(promptTokens, p.PromptMicro), MulChecked(completionTokens, p.CompletionMicro))
	return ceilDiv(micro, MicroPerCredit)
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return a/b + min(1, a%b)
}

// Scale multiplies every part of the price by f (an upstream's price
// multiplier), rounding up. Zero or one (most upstreams) is the price
// itself: settling a call spends no big-number arithmetic on it.
func (p Price) Scale(f Decimal) Price {
	if n, whole := f.Int64(); f.Sign() == 0 || (whole && n == 1) {
		return p
	}
	s := func(v int64) int64 {
		r, ok := NewDecimalFrac(v, 1).Mul(f).CeilChecked()
		if !ok || r < 0 {
			return maxPartMicro
		}
		return min(r, maxPartMicro)
	}
	out := Price{
		PromptMicro: s(p.PromptMicro), CompletionMicro: s(p.CompletionMicro),
		CacheReadMicro: s(p.CacheReadMicro), CacheWriteMicro: s(p.CacheWriteMicro), CacheWrite1hMicro: s(p.CacheWrite1hMicro),
		ReasoningMicro: s(p.ReasoningMicro), AudioInMicro: s(p.AudioInMicro), AudioOutMicro: s(p.AudioOutMicro),
		ImageInMicro: s(p.ImageInMicro), ImageOutMicro: s(p.ImageOutMicro), RequestMicro: s(p.RequestMicro), WebSearchMicro: s(p.WebSearchMicro),
		LongAbove: p.LongAbove,
	}
	if p.Long != nil {
		l := p.Long.Scale(f)
		out.Long = &l
	}
	return out
}

// For is the price that bills a request with the given prompt size: the
// long-context tier above its threshold, else the base price.
func (p *Price) For(promptTokens int64) *Price {
	if p.Long != nil && p.LongAbove > 0 && promptTokens > p.LongAbove {
		return p.Long
	}
	return p
}

// CheckPrice is a 400 naming the part when a model's price has a negative
// part, or a long-context tier without its threshold.
func (m *Model) CheckPrice() *Error {
	check := func(field string, prompt, completion Decimal, pp *PriceParts) *Error {
		if prompt.Sign() < 0 || completion.Sign() < 0 {
			return ErrInvalidValue(field, "Prices must not be negative.")
		}
		if err := checkParts(field, pp); err != nil {
			return err
		}
		if lc := pp.LongContext; lc != nil {
			if lc.AbovePromptTokens <= 0 {
				return ErrInvalidValue(field, "long_context needs above_prompt_tokens, the prompt size above which it applies.")
			}
			if lc.PromptPerMTok.Sign() < 0 || lc.CompletionPerMTok.Sign() < 0 {
				return ErrInvalidValue(field, "Prices must not be negative.")
			}
			return checkParts(field, &lc.PriceParts)
		}
		return nil
	}
	if err := check("usd", m.USD.PromptPerMTok, m.USD.CompletionPerMTok, &m.USD.PriceParts); err != nil {
		return err
	}
	if m.RUB != nil {
		return check("rub", m.RUB.PromptPerMTok, m.RUB.CompletionPerMTok, &m.RUB.PriceParts)
	}
	return nil
}

// checkParts is a 400 when a part is negative.
func checkParts(field string, pp *PriceParts) *Error {
	for _, d := range []*Decimal{pp.CacheReadPerMTok, pp.CacheWritePerMTok, pp.CacheWrite1hPerMTok, pp.ReasoningPerMTok,
		pp.AudioInPerMTok, pp.AudioOutPerMTok, pp.ImageInPerMTok, pp.ImageOutPerMTok, pp.RequestFee} {
		if d != nil && d.Sign() < 0 {
			return ErrInvalidValue(field, "Prices must not be negative.")
		}
	}
	return nil
}
