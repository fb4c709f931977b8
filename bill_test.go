package shlyuz

import (
	"math"
	"math/rand/v2"
	"testing"
)

func dec(s string) *Decimal { d := MustDecimal(s); return &d }

// List prices, USD per million tokens, from ../shared/data/litellm-model-prices.json.
var (
	// "gpt-4o-mini" (line 22648): input_cost_per_token 1.5e-07,
	// cache_read_input_token_cost 7.5e-08, output_cost_per_token 6e-07.
	gpt4oMini = USDPrice{PromptPerMTok: MustDecimal("0.15"), CompletionPerMTok: MustDecimal("0.6"),
		PriceParts: PriceParts{CacheReadPerMTok: dec("0.075")}}
	// "claude-sonnet-4-5" (line 11610): input 3e-06, output 1.5e-05, cache read
	// 3e-07, cache creation 3.75e-06, above 1hr 6e-06; above 200k tokens:
	// input 6e-06, output 2.25e-05, cache read 6e-07, creation 7.5e-06, 1hr 1.2e-05.
	sonnet45 = USDPrice{PromptPerMTok: MustDecimal("3"), CompletionPerMTok: MustDecimal("15"),
		PriceParts: PriceParts{CacheReadPerMTok: dec("0.3"), CacheWritePerMTok: dec("3.75"), CacheWrite1hPerMTok: dec("6"),
			LongContext: &LongContextPrice{AbovePromptTokens: 200_000, PromptPerMTok: MustDecimal("6"), CompletionPerMTok: MustDecimal("22.5"),
				PriceParts: PriceParts{CacheReadPerMTok: dec("0.6"), CacheWritePerMTok: dec("7.5"), CacheWrite1hPerMTok: dec("12")}}}}
	// An operator's price with a per-request fee (USD 0.005 a request).
	withFee = USDPrice{PromptPerMTok: MustDecimal("1"), CompletionPerMTok: MustDecimal("1"), PriceParts: PriceParts{RequestFee: dec("0.005")}}
)

// At rate 100 and K 1 one USD is 10,000,000 credits, so a price of P USD per
// million tokens is 10·P credits a token. The expected figures below are
// that arithmetic done by hand.
func TestBill(t *testing.T) {
	pricing := Pricing{Rate: MustDecimal("100"), K: MustDecimal("1")}
	tests := []struct {
		name    string
		price   USDPrice
		usage   Usage
		want    Credits
		details CreditsDetails
	}{
		{"plain", gpt4oMini, Usage{PromptTokens: 118, CompletionTokens: 10},
			// 118×1.5 + 10×6 = 177 + 60
			237, CreditsDetails{Input: 177, Output: 60}},
		{"cached read at the cache price", gpt4oMini, Usage{PromptTokens: 118, CompletionTokens: 10, CachedTokens: 96},
			// 22×1.5 + 96×0.75 + 10×6 = 33 + 72 + 60
			165, CreditsDetails{Input: 33, CachedInput: 72, Output: 60}},
		{"reasoning not priced apart bills as output", gpt4oMini, Usage{PromptTokens: 8, CompletionTokens: 40, ReasoningTokens: 30},
			// 8×1.5 + 10×6 + 30×6 = 12 + 60 + 180
			252, CreditsDetails{Input: 12, Output: 60, Reasoning: 180}},
		{"one round-up per request", gpt4oMini, Usage{PromptTokens: 3, CompletionTokens: 1, CachedTokens: 1},
			// 2×1.5 + 1×0.75 + 6 = 9.75 → 10; the cached part's 0.75 takes the unit
			10, CreditsDetails{Input: 3, CachedInput: 1, Output: 6}},
		{"Anthropic reads, 5-minute and 1-hour writes", sonnet45,
			Usage{PromptTokens: 1001, CompletionTokens: 50, CachedTokens: 500, CacheWriteTokens: 401, CacheWrite1hTokens: 100},
			// 100×30 + 500×3 + 301×37.5 + 100×60 + 50×150 = 3000 + 1500 + (11287.5 + 6000) + 7500 = 29287.5 → 29288
			29288, CreditsDetails{Input: 3000, CachedInput: 1500, CacheWrite: 17288, Output: 7500}},
		{"long-context tier above 200k", sonnet45, Usage{PromptTokens: 250_000, CompletionTokens: 1000, CachedTokens: 10_000},
			// 240,000×60 + 10,000×6 + 1000×225
			14_685_000, CreditsDetails{Input: 14_400_000, CachedInput: 60_000, Output: 225_000}},
		{"at 200k the base price", sonnet45, Usage{PromptTokens: 200_000, CompletionTokens: 1},
			// 200,000×30 + 150
			6_000_150, CreditsDetails{Input: 6_000_000, Output: 150}},
		{"request fee", withFee, Usage{PromptTokens: 1, CompletionTokens: 1},
			// 10 + 10 + 0.005 × 10,000,000
			50_020, CreditsDetails{Input: 10, Output: 10, Request: 50_000}},
		{"details past the totals are clamped", gpt4oMini, Usage{PromptTokens: 10, CompletionTokens: 5, CachedTokens: 50, ReasoningTokens: 9},
			// 10×0.75 + 5×6 = 7.5 + 30 → 38
			38, CreditsDetails{CachedInput: 8, Reasoning: 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DerivePrice(tt.price, pricing)
			b := p.Bill(tt.usage)
			if b.Credits != tt.want {
				t.Errorf("credits = %d, want %d", b.Credits, tt.want)
			}
			if b.Details != tt.details {
				t.Errorf("details = %+v, want %+v", b.Details, tt.details)
			}
			if s := b.Details.Sum(); s != b.Credits {
				t.Errorf("details sum to %d, not %d", s, b.Credits)
			}
			bound := p.Bound(tt.usage.PromptTokens)
			if w := bound.Charge(tt.usage.PromptTokens, tt.usage.CompletionTokens); w < b.Credits {
				t.Errorf("the bound's charge %d is below the bill %d", w, b.Credits)
			}
		})
	}
}

func TestBillOverflowSaturatesAndCaps(t *testing.T) {
	p := DerivePrice(USDPrice{PromptPerMTok: MustDecimal("1000000"), CompletionPerMTok: MustDecimal("1000000")}, Pricing{Rate: MustDecimal("1000000"), K: MustDecimal("1000")})
	b := p.Bill(Usage{PromptTokens: math.MaxInt64 / 2, CompletionTokens: math.MaxInt64 / 2})
	if b.Credits != math.MaxInt64 {
		t.Fatalf("credits = %d, want saturation at MaxInt64", b.Credits)
	}
	if !b.Cap(1001) || b.Credits != 1001 || b.Details.Sum() != 1001 {
		t.Fatalf("capped bill = %d, details %+v", b.Credits, b.Details)
	}
	if b.Details.Input != 501 || b.Details.Output != 500 { // equal parts: the remainder goes to the first
		t.Errorf("capped details = %+v", b.Details)
	}
}

func TestUnsetPartsFollowPromptAndCompletion(t *testing.T) {
	p := DerivePrice(USDPrice{PromptPerMTok: MustDecimal("1"), CompletionPerMTok: MustDecimal("2")}, Pricing{Rate: MustDecimal("100"), K: MustDecimal("1")})
	want := Price{PromptMicro: 10_000_000, CompletionMicro: 20_000_000, CacheReadMicro: 10_000_000, CacheWriteMicro: 10_000_000,
		CacheWrite1hMicro: 10_000_000, ReasoningMicro: 20_000_000, AudioInMicro: 10_000_000, AudioOutMicro: 20_000_000,
		ImageInMicro: 10_000_000, ImageOutMicro: 20_000_000}
	if p != want {
		t.Errorf("price = %+v, want %+v", p, want)
	}
	free := DerivePrice(USDPrice{PromptPerMTok: MustDecimal("1"), PriceParts: PriceParts{CacheReadPerMTok: dec("0")}}, Pricing{Rate: MustDecimal("100"), K: MustDecimal("1")})
	if free.CacheReadMicro != 0 {
		t.Errorf("a cache read priced 0 costs %d", free.CacheReadMicro)
	}
}

func TestCheckPrice(t *testing.T) {
	neg := MustDecimal("-1")
	for name, tc := range map[string]struct {
		m  Model
		ok bool
	}{
		"list prices":            {Model{USD: sonnet45}, true},
		"a negative cache part":  {Model{USD: USDPrice{PriceParts: PriceParts{CacheReadPerMTok: &neg}}}, false},
		"a negative ruble part":  {Model{RUB: &RUBPrice{PriceParts: PriceParts{RequestFee: &neg}}}, false},
		"a tier with no size":    {Model{USD: USDPrice{PriceParts: PriceParts{LongContext: &LongContextPrice{}}}}, false},
		"a tier's negative part": {Model{USD: USDPrice{PriceParts: PriceParts{LongContext: &LongContextPrice{AbovePromptTokens: 1, PriceParts: PriceParts{CacheWritePerMTok: &neg}}}}}, false},
	} {
		if err := tc.m.CheckPrice(); (err == nil) != tc.ok {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The 64-bit sharing gives the parts arbitrary precision gives, wherever it
// applies: the same units to the same parts, remainders and ties alike.
func TestShareSmallIsShareBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	scales := []int64{1, 10, 1_000, 1 << 20, 1 << 40, math.MaxInt64 / 16}
	for i := range 20_000 {
		var b Bill
		scale := scales[i%len(scales)]
		for k := range b.micro {
			if r.IntN(3) > 0 {
				b.micro[k] = r.Int64N(scale)
			}
		}
		var total int64
		for _, m := range b.micro {
			total = AddChecked(total, m)
		}
		b.Credits = ceilDiv(total, MicroPerCredit)
		if i%7 == 0 {
			b.Credits = r.Int64N(b.Credits + 1) // capped
		}
		small, big := b, b
		if !small.shareSmall() {
			continue
		}
		big.shareBig()
		if small.Details != big.Details {
			t.Fatalf("micro %v, credits %d: 64-bit %+v, big %+v", b.micro, b.Credits, small.Details, big.Details)
		}
	}
}
