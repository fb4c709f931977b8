package shlyuz

// MicroPerCredit is the fixed-point scale of per-token prices: a price is held
// in micro-credits (1/1,000,000 credit) per token, so credits per 1k tokens are
// exact to three decimals.
const MicroPerCredit int64 = 1_000_000

// USDPrice is a model's price at its upstream, in US dollars per million tokens.
type USDPrice struct {
	PromptPerMTok     Decimal `json:"prompt_usd_per_mtok" yaml:"prompt_usd_per_mtok"`
	CompletionPerMTok Decimal `json:"completion_usd_per_mtok" yaml:"completion_usd_per_mtok"`
}

// RUBPrice is a model's price at an upstream that bills in rubles (GigaChat,
// YandexGPT), in rubles per million tokens. No exchange rate applies to it.
type RUBPrice struct {
	PromptPerMTok     Decimal `json:"prompt_rub_per_mtok" yaml:"prompt_rub_per_mtok"`
	CompletionPerMTok Decimal `json:"completion_rub_per_mtok" yaml:"completion_rub_per_mtok"`
}

// Pricing is what GET /api/pricing returns: the exchange rate in rubles per US
// dollar and the coefficient K applied on top of upstream prices.
type Pricing struct {
	Rate Decimal `json:"rate"`
	K    Decimal `json:"K"`
}

// Price is a model's price in micro-credits per token, derived once from its
// USD price, the rate and K, and used for every charge.
type Price struct {
	PromptMicro     int64
	CompletionMicro int64
}

// DerivePrice applies invariant 6: credits_per_1k = usd_per_1k × rate × K × 100,000,
// rounded up to a whole micro-credit per token.
func DerivePrice(usd USDPrice, p Pricing) Price {
	perToken := func(perMTok Decimal) int64 {
		// usd per token × rate × K × credits per ruble × micro per credit
		return perMTok.Mul(p.Rate).Mul(p.K).MulInt(CreditsPerRuble).MulInt(MicroPerCredit).Quo(1_000_000).Ceil()
	}
	return Price{PromptMicro: perToken(usd.PromptPerMTok), CompletionMicro: perToken(usd.CompletionPerMTok)}
}

// DeriveRUBPrice is DerivePrice for a price in rubles: credits_per_1k = rub_per_1k × K × 100,000.
func DeriveRUBPrice(rub RUBPrice, p Pricing) Price {
	perToken := func(perMTok Decimal) int64 {
		return perMTok.Mul(p.K).MulInt(CreditsPerRuble).MulInt(MicroPerCredit).Quo(1_000_000).Ceil()
	}
	return Price{PromptMicro: perToken(rub.PromptPerMTok), CompletionMicro: perToken(rub.CompletionPerMTok)}
}

// CreditsPer1KPrompt is the published price of 1,000 prompt tokens in credits.
func (p Price) CreditsPer1KPrompt() Decimal {
	return NewDecimalFrac(p.PromptMicro*1000, MicroPerCredit)
}

// CreditsPer1KCompletion is the published price of 1,000 completion tokens in credits.
func (p Price) CreditsPer1KCompletion() Decimal {
	return NewDecimalFrac(p.CompletionMicro*1000, MicroPerCredit)
}

// Charge is the price of a request with the given token counts, rounded up to a whole credit.
func (p Price) Charge(promptTokens, completionTokens int64) Credits {
	micro := promptTokens*p.PromptMicro + completionTokens*p.CompletionMicro
	return ceilDiv(micro, MicroPerCredit)
}

// CompletionTokensFor is how many completion tokens the given credits afford
// after paying for promptTokens; never negative.
func (p Price) CompletionTokensFor(budget Credits, promptTokens int64) int64 {
	left := budget*MicroPerCredit - promptTokens*p.PromptMicro
	if left <= 0 {
		return 0
	}
	if p.CompletionMicro == 0 {
		return 1 << 40
	}
	return left / p.CompletionMicro
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// Scale multiplies the price by f (an upstream's price multiplier), rounding up.
func (p Price) Scale(f Decimal) Price {
	if f.Sign() == 0 {
		return p
	}
	return Price{
		PromptMicro:     NewDecimalFrac(p.PromptMicro, 1).Mul(f).Ceil(),
		CompletionMicro: NewDecimalFrac(p.CompletionMicro, 1).Mul(f).Ceil(),
	}
}

// Max is the dearer of two prices, part by part.
func (p Price) Max(q Price) Price {
	return Price{PromptMicro: max(p.PromptMicro, q.PromptMicro), CompletionMicro: max(p.CompletionMicro, q.CompletionMicro)}
}
