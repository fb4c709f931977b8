package shlyuz

import (
	"math"
	"testing"
)

func TestDerivePrice(t *testing.T) {
	tests := []struct {
		name                   string
		prompt, completion     string // USD per million tokens
		rate, k                string
		promptMicro, compMicro int64
	}{
		// 1 USD/Mtok × 100 RUB/USD = 0.0001 RUB = 10 credits per token
		{"one dollar at 100", "1", "1", "100", "1", 10_000_000, 10_000_000},
		// 2.5 × 90 × 1.5 × 100,000 = 33,750,000 micro-credits per token
		{"gpt-4o at 90 and 1.5", "2.5", "10", "90", "1.5", 33_750_000, 135_000_000},
		{"exact fraction", "0.04815", "0.19305", "90", "1.5", 650_025, 2_606_175},
		// 0.0000001 × 90 × 1.5 × 100,000 = 1.35 micro: rounds up to 2
		{"rounds up to a micro-credit", "0.0000001", "0.00000001", "90", "1.5", 2, 1},
		{"zero price", "0", "0", "90", "1.5", 0, 0},
		{"fractional rate", "1", "3", "95.5", "1", 9_550_000, 28_650_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			usd := USDPrice{PromptPerMTok: MustDecimal(tt.prompt), CompletionPerMTok: MustDecimal(tt.completion)}
			p := DerivePrice(usd, Pricing{Rate: MustDecimal(tt.rate), K: MustDecimal(tt.k)})
			if p.PromptMicro != tt.promptMicro || p.CompletionMicro != tt.compMicro {
				t.Errorf("DerivePrice = %+v, want {PromptMicro:%d CompletionMicro:%d}", p, tt.promptMicro, tt.compMicro)
			}
		})
	}
}

func TestPricePer1K(t *testing.T) {
	tests := []struct {
		price              Price
		prompt, completion string
	}{
		{Price{PromptMicro: 33_750_000, CompletionMicro: 135_000_000}, "33750", "135000"},
		{Price{PromptMicro: 650_025, CompletionMicro: 2_606_175}, "650.025", "2606.175"},
		{Price{PromptMicro: 1, CompletionMicro: 0}, "0.001", "0"},
	}
	for _, tt := range tests {
		if got := tt.price.CreditsPer1KPrompt(); got.Cmp(MustDecimal(tt.prompt)) != 0 {
			t.Errorf("%+v: CreditsPer1KPrompt = %s, want %s", tt.price, got, tt.prompt)
		}
		if got := tt.price.CreditsPer1KCompletion(); got.Cmp(MustDecimal(tt.completion)) != 0 {
			t.Errorf("%+v: CreditsPer1KCompletion = %s, want %s", tt.price, got, tt.completion)
		}
	}
}

func TestPriceCharge(t *testing.T) {
	p := Price{PromptMicro: 1_500_000, CompletionMicro: 2_000_000} // 1.5 and 2 credits per token
	tiny := Price{PromptMicro: 250_000, CompletionMicro: 1}        // 0.25 and 0.000001 credits per token
	tests := []struct {
		name               string
		price              Price
		prompt, completion int64
		want               Credits
	}{
		{"zero tokens cost nothing", p, 0, 0, 0},
		{"zero tokens of a tiny price", tiny, 0, 0, 0},
		{"one prompt token rounds up", p, 1, 0, 2},
		{"exact multiple does not round up", p, 2, 0, 3},
		{"prompt and completion add before rounding", p, 1, 1, 4},
		{"completion only", p, 0, 3, 6},
		{"four quarters are one credit", tiny, 4, 0, 1},
		{"five quarters round up to two", tiny, 5, 0, 2},
		{"one micro-credit costs a whole credit", tiny, 0, 1, 1},
		{"a million micro-credits are exactly one", tiny, 0, 1_000_000, 1},
		{"one micro over rounds up", tiny, 0, 1_000_001, 2},
		{"negative counts cost nothing", p, -5, 0, 0},
		{"large request", Price{PromptMicro: 33_750_000, CompletionMicro: 135_000_000}, 100_000, 16_384, 3_375_000 + 2_211_840},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.price.Charge(tt.prompt, tt.completion); got != tt.want {
				t.Errorf("Charge(%d, %d) = %d, want %d", tt.prompt, tt.completion, got, tt.want)
			}
		})
	}
}

func TestCompletionTokensFor(t *testing.T) {
	p := PriceBound{PromptMicro: 1_000_000, CompletionMicro: 2_000_000}
	tests := []struct {
		name   string
		price  PriceBound
		budget Credits
		prompt int64
		want   int64
	}{
		{"budget after prompt", p, 100, 10, 45},
		{"rounds down", p, 11, 0, 5},
		{"prompt takes the whole budget", p, 10, 10, 0},
		{"prompt exceeds the budget", p, 10, 11, 0},
		{"no budget", p, 0, 0, 0},
		{"free completion", PriceBound{PromptMicro: 1_000_000}, 10, 1, 1 << 40},
		{"fractional completion price", PriceBound{CompletionMicro: 300_000}, 1, 0, 3},
		{"request fee first", PriceBound{CompletionMicro: 1_000_000, RequestMicro: 5_000_000}, 10, 0, 5},
		{"a budget of 10^13 credits does not overflow", p, 10_000_000_000_000, 0, 5_000_000_000_000},
		{"the largest budget", PriceBound{CompletionMicro: 1}, math.MaxInt64, 0, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.price.CompletionTokensFor(tt.budget, tt.prompt)
			if got != tt.want {
				t.Fatalf("CompletionTokensFor(%d, %d) = %d, want %d", tt.budget, tt.prompt, got, tt.want)
			}
			if tt.price.CompletionMicro > 0 && got > 0 {
				if c := tt.price.Charge(tt.prompt, got); c > tt.budget {
					t.Errorf("affordable tokens cost %d, more than the budget %d", c, tt.budget)
				}
			}
		})
	}
}

func TestRublesToCredits(t *testing.T) {
	tests := []struct {
		rubles  string
		want    Credits
		wantErr bool
	}{
		{"150", 15_000_000, false},
		{"99.90", 9_990_000, false},
		{"0.00001", 1, false},
		{"0", 0, false},
		{"1.000000", 100_000, false}, // trailing zeros add no precision
		{"0.000001", 0, true},
		{"0.123456", 0, true},
		{"-1", 0, true},
		{"-0.00001", 0, true},
		{"", 0, true},
		{"abc", 0, true},
		{"1/2", 0, true},
		{"0x10", 0, true},
		{"100000000000000", 0, true}, // 10^19 credits do not fit an int64
	}
	for _, tt := range tests {
		t.Run(tt.rubles, func(t *testing.T) {
			got, err := RublesToCredits(tt.rubles)
			if (err != nil) != tt.wantErr {
				t.Fatalf("RublesToCredits(%q) error = %v, want error %v", tt.rubles, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("RublesToCredits(%q) = %d, want %d", tt.rubles, got, tt.want)
			}
		})
	}
}

func TestFormatRubles(t *testing.T) {
	tests := []struct {
		credits Credits
		want    string
	}{
		{15_000_000, "150"},
		{9_990_000, "99.9"},
		{1, "0.00001"},
		{0, "0"},
		{-150_000, "-1.5"},
	}
	for _, tt := range tests {
		if got := FormatRubles(tt.credits); got != tt.want {
			t.Errorf("FormatRubles(%d) = %q, want %q", tt.credits, got, tt.want)
		}
		if tt.credits >= 0 {
			if back, err := RublesToCredits(FormatRubles(tt.credits)); err != nil || back != tt.credits {
				t.Errorf("RublesToCredits(FormatRubles(%d)) = %d, %v", tt.credits, back, err)
			}
		}
	}
}
