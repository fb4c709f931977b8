package shlyuz

import "testing"

// TestBoundForPricesThePromptAtWhatTheRequestCanBeBilled: the prompt's bound
// is the dearest price of a kind the request can be billed (listed prices
// from ../shared/data/litellm-model-prices.json, at 100 ₽ a dollar and K 1: a
// dollar per million tokens is 10 credits a token, 10,000,000 micro-credits).
func TestBoundForPricesThePromptAtWhatTheRequestCanBeBilled(t *testing.T) {
	pricing := Pricing{Rate: MustDecimal("100"), K: MustDecimal("1")}
	// "claude-sonnet-4-5": input 3e-06, cache_creation 3.75e-06, cache_creation above_1hr 6e-06,
	// cache_read 3e-07, output 1.5e-05; above 200k tokens: input 6e-06, cache_creation 7.5e-06,
	// cache_creation above_1hr 1.2e-05, cache_read 6e-07, output 2.25e-05.
	sonnet := USDPrice{PromptPerMTok: MustDecimal("3"), CompletionPerMTok: MustDecimal("15"), PriceParts: PriceParts{
		CacheReadPerMTok: dec("0.3"), CacheWritePerMTok: dec("3.75"), CacheWrite1hPerMTok: dec("6"),
		LongContext: &LongContextPrice{AbovePromptTokens: 200_000, PromptPerMTok: MustDecimal("6"), CompletionPerMTok: MustDecimal("22.5"),
			PriceParts: PriceParts{CacheReadPerMTok: dec("0.6"), CacheWritePerMTok: dec("7.5"), CacheWrite1hPerMTok: dec("12")}},
	}}
	// "gpt-4o-audio-preview": input 2.5e-06, input audio 4e-05, output 1e-05, output audio 8e-05.
	audio := USDPrice{PromptPerMTok: MustDecimal("2.5"), CompletionPerMTok: MustDecimal("10"),
		PriceParts: PriceParts{AudioInPerMTok: dec("40"), AudioOutPerMTok: dec("80")}}
	// "gpt-image-1": input 5e-06, input image 1e-05, cache_read 1.25e-06, output image 4e-05.
	image := USDPrice{PromptPerMTok: MustDecimal("5"), CompletionPerMTok: MustDecimal("40"),
		PriceParts: PriceParts{CacheReadPerMTok: dec("1.25"), ImageInPerMTok: dec("10")}}
	tests := []struct {
		name       string
		price      USDPrice
		prompt     int64
		kinds      PromptKinds
		wantPrompt int64 // micro-credits a prompt token
	}{
		{"no caching asked", sonnet, 1_000, 0, 30_000_000},                                                     // $3
		{"five-minute writes asked", sonnet, 1_000, PromptCacheWrite, 37_500_000},                              // $3.75
		{"one-hour writes asked", sonnet, 1_000, PromptCacheWrite | PromptCacheWrite1h, 60_000_000},            // $6
		{"nothing known", sonnet, 1_000, AnyPrompt, 60_000_000},                                                // $6
		{"long context, no caching", sonnet, 200_001, 0, 60_000_000},                                           // $6 above 200k
		{"long context, five-minute writes", sonnet, 200_001, PromptCacheWrite, 75_000_000},                    // $7.50
		{"long context, one-hour writes", sonnet, 200_001, PromptCacheWrite | PromptCacheWrite1h, 120_000_000}, // $12
		{"at the long tier's edge", sonnet, 200_000, PromptCacheWrite, 37_500_000},                             // $3.75
		{"text to an audio model", audio, 1_000, 0, 25_000_000},                                                // $2.50
		{"audio to an audio model", audio, 1_000, PromptAudio, 400_000_000},                                    // $40
		{"images to an audio model", audio, 1_000, PromptImage, 25_000_000},                                    // $2.50
		{"text to an image model", image, 1_000, 0, 50_000_000},                                                // $5
		{"an image to an image model", image, 1_000, PromptImage, 100_000_000},                                 // $10
		{"audio to an image model", image, 1_000, PromptAudio | PromptCacheWrite, 50_000_000},                  // $5
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := DerivePrice(tt.price, pricing)
			b := p.BoundFor(tt.prompt, tt.kinds)
			if b.PromptMicro != tt.wantPrompt {
				t.Errorf("prompt bound %d micro-credits a token, want %d", b.PromptMicro, tt.wantPrompt)
			}
			if all := p.Bound(tt.prompt); all.PromptMicro < b.PromptMicro || all.CompletionMicro != b.CompletionMicro {
				t.Errorf("Bound %+v is below BoundFor %+v", all, b)
			}
		})
	}
}
