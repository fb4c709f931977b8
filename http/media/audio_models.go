package media

import shlyuz "github.com/shlyuz/shlyuz"

// SpeechPricing is a speech model's voices, formats and price in the model
// lists: credits per 1,000 input characters (charged per block_chars
// started), or the token prices of a token-priced model.
type SpeechPricing struct {
	Unit                    string          `json:"unit"`
	Voices                  []string        `json:"voices"`
	Formats                 []string        `json:"formats"`
	MaxInputChars           int             `json:"max_input_chars,omitempty"`
	CreditsPer1KChars       *shlyuz.Decimal `json:"credits_per_1k_chars,omitempty"`
	BlockChars              int64           `json:"block_chars,omitempty"`
	CreditsPer1KPrompt      *shlyuz.Decimal `json:"credits_per_1k_prompt,omitempty"`
	CreditsPer1KAudioTokens *shlyuz.Decimal `json:"credits_per_1k_audio_tokens,omitempty"`
}

// TranscriptionPricing is a transcription model's formats, limits and price:
// credits per minute of audio (charged per block_seconds started, at least
// min_seconds), or its token prices.
type TranscriptionPricing struct {
	Unit                    string          `json:"unit"`
	Formats                 []string        `json:"formats"`
	ResponseFormats         []string        `json:"response_formats"`
	MaxBytes                int64           `json:"max_bytes"`
	MaxSeconds              int64           `json:"max_seconds,omitempty"`
	CreditsPerMinute        *shlyuz.Decimal `json:"credits_per_minute,omitempty"`
	BlockSeconds            int64           `json:"block_seconds,omitempty"`
	MinSeconds              int64           `json:"min_seconds,omitempty"`
	CreditsPer1KPrompt      *shlyuz.Decimal `json:"credits_per_1k_prompt,omitempty"`
	CreditsPer1KCompletion  *shlyuz.Decimal `json:"credits_per_1k_completion,omitempty"`
	CreditsPer1KAudioTokens *shlyuz.Decimal `json:"credits_per_1k_audio_tokens,omitempty"`
}

// perThousand is a price per million US dollars as credits per thousand.
func perThousand(usdPerM shlyuz.Decimal, p shlyuz.Pricing) *shlyuz.Decimal {
	d := shlyuz.USDInCredits(usdPerM.Quo(1000), p)
	return &d
}

func SpeechPricingOf(m *shlyuz.PricedModel, p shlyuz.Pricing) *SpeechPricing {
	s := m.Speech
	if s == nil {
		return nil
	}
	sp := &SpeechPricing{Unit: s.Unit, Voices: s.Voices, Formats: s.Formats, MaxInputChars: s.MaxInput, BlockChars: s.BlockChars}
	if s.Unit == shlyuz.AudioUnitToken {
		sp.CreditsPer1KPrompt, sp.CreditsPer1KAudioTokens = perThousand(m.USD.PromptPerMTok, p), perThousand(s.USDPerMAudioTokens, p)
	} else {
		sp.CreditsPer1KChars = perThousand(s.USDPerMChars, p)
	}
	return sp
}

func TranscriptionPricingOf(m *shlyuz.PricedModel, p shlyuz.Pricing) *TranscriptionPricing {
	s := m.Transcription
	if s == nil {
		return nil
	}
	tp := &TranscriptionPricing{Unit: s.Unit, Formats: s.Formats, ResponseFormats: s.ResponseFormats, MaxBytes: s.MaxBytes,
		MaxSeconds: s.MaxSeconds, BlockSeconds: s.BlockSeconds, MinSeconds: s.MinSeconds}
	if s.Unit == shlyuz.AudioUnitToken {
		tp.CreditsPer1KPrompt, tp.CreditsPer1KCompletion = perThousand(m.USD.PromptPerMTok, p), perThousand(m.USD.CompletionPerMTok, p)
		tp.CreditsPer1KAudioTokens = perThousand(s.USDPerMAudioTokens, p)
	} else {
		d := shlyuz.USDInCredits(s.USDPerMinute, p)
		tp.CreditsPerMinute = &d
	}
	return tp
}

// ListsModel reports whether a model belongs in the list of the output
// modality want: all, a modality it outputs, or speech and transcription
// (OpenRouter's names) for the models of the audio API.
func ListsModel(m *shlyuz.PricedModel, want string) bool {
	switch want {
	case "all":
		return true
	case "speech":
		return m.Speech != nil
	case "transcription":
		return m.Transcription != nil
	}
	return m.Outputs(want)
}
