package openrouter

import shlyuz "github.com/shlyuz/shlyuz"

// partsPer1K are the parts of a model's price that differ from its plain
// prompt and completion prices, in credits per 1,000 tokens (request: per
// request); absent parts bill as plain tokens.
type partsPer1K struct {
	CacheRead    *shlyuz.Decimal `json:"cache_read,omitempty"`
	CacheWrite   *shlyuz.Decimal `json:"cache_write,omitempty"`
	CacheWrite1h *shlyuz.Decimal `json:"cache_write_1h,omitempty"`
	Reasoning    *shlyuz.Decimal `json:"reasoning,omitempty"`
	AudioInput   *shlyuz.Decimal `json:"audio_input,omitempty"`
	AudioOutput  *shlyuz.Decimal `json:"audio_output,omitempty"`
	ImageInput   *shlyuz.Decimal `json:"image_input,omitempty"`
	ImageOutput  *shlyuz.Decimal `json:"image_output,omitempty"`
	Request      *shlyuz.Decimal `json:"request,omitempty"`
	LongContext  *longPer1K      `json:"long_context,omitempty"`
}

// longPer1K is the long-context tier: every token dearer above a prompt size.
type longPer1K struct {
	AbovePromptTokens      int64          `json:"above_prompt_tokens"`
	CreditsPer1KPrompt     shlyuz.Decimal `json:"credits_per_1k_prompt"`
	CreditsPer1KCompletion shlyuz.Decimal `json:"credits_per_1k_completion"`
	Parts                  *partsPer1K    `json:"parts,omitempty"`
}

// videoPricing is a video model's price of a second.
type videoPricing struct {
	CreditsPerSecond shlyuz.Credits `json:"credits_per_second"`
}

func per1K(micro int64) shlyuz.Decimal {
	return shlyuz.NewDecimalFrac(micro*1000, shlyuz.MicroPerCredit)
}

// partsOf is the price's parts priced apart, or nil when none is.
func partsOf(p *shlyuz.Price) *partsPer1K {
	var out partsPer1K
	set := false
	part := func(micro, plain int64) *shlyuz.Decimal {
		if micro == plain {
			return nil
		}
		set = true
		d := per1K(micro)
		return &d
	}
	out.CacheRead = part(p.CacheReadMicro, p.PromptMicro)
	out.CacheWrite = part(p.CacheWriteMicro, p.PromptMicro)
	out.CacheWrite1h = part(p.CacheWrite1hMicro, p.CacheWriteMicro)
	out.Reasoning = part(p.ReasoningMicro, p.CompletionMicro)
	out.AudioInput = part(p.AudioInMicro, p.PromptMicro)
	out.AudioOutput = part(p.AudioOutMicro, p.CompletionMicro)
	out.ImageInput = part(p.ImageInMicro, p.PromptMicro)
	out.ImageOutput = part(p.ImageOutMicro, p.CompletionMicro)
	if p.RequestMicro > 0 {
		d := shlyuz.NewDecimalFrac(p.RequestMicro, shlyuz.MicroPerCredit)
		out.Request, set = &d, true
	}
	if p.Long != nil && p.LongAbove > 0 {
		out.LongContext = &longPer1K{AbovePromptTokens: p.LongAbove, CreditsPer1KPrompt: per1K(p.Long.PromptMicro),
			CreditsPer1KCompletion: per1K(p.Long.CompletionMicro), Parts: partsOf(p.Long)}
		set = true
	}
	if !set {
		return nil
	}
	return &out
}

// videoPricingOf is a video model's price, or nil for another model.
func videoPricingOf(m *shlyuz.PricedModel, p shlyuz.Pricing) *videoPricing {
	if m.Video == nil {
		return nil
	}
	return &videoPricing{CreditsPerSecond: m.Video.CreditsPerSecond(p)}
}
