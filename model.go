package shlyuz

// Model is one entry of the catalog: a model clients may name as "<provider>/<model_name>".
type Model struct {
	ID               string    `json:"id" yaml:"id"`
	Name             string    `json:"name" yaml:"name"`
	ContextLength    int64     `json:"context_length" yaml:"context_length"`
	MaxOutputTokens  int64     `json:"max_output_tokens" yaml:"max_output_tokens"` // 0: unknown, use DefaultMaxOutput
	InputModalities  []string  `json:"input_modalities" yaml:"input_modalities"`
	OutputModalities []string  `json:"output_modalities" yaml:"output_modalities"`
	USD              USDPrice  `json:"usd" yaml:"usd"`
	RUB              *RUBPrice `json:"rub,omitempty" yaml:"rub"` // set: the model is priced in rubles, USD is ignored
	Created          int64     `json:"created" yaml:"created"`

	// Video generation: set for a video model, with its durations,
	// sizes and price per second.
	Video *VideoSpec `json:"video,omitempty" yaml:"video"`
	// Image generation: set for a model of the image API, with its
	// sizes, qualities and price.
	Image *ImageSpec `json:"image,omitempty" yaml:"image"`
	// Speech and transcription: set for a text-to-speech or a
	// speech-to-text model, with its voices or formats and price.
	Speech        *SpeechSpec        `json:"speech,omitempty" yaml:"speech"`
	Transcription *TranscriptionSpec `json:"transcription,omitempty" yaml:"transcription"`

	// Aliases are other names clients call the model by: its provider's own
	// ids, dated and undated ("claude-sonnet-4-5-20250929" for
	// "anthropic/claude-sonnet-4.5"), which agents written for that provider send.
	Aliases []string `json:"aliases,omitempty" yaml:"aliases"`

	// Lifecycle: when the model is deprecated and when it retires (no longer
	// sold), and what replaces it; see model_lifecycle.go.
	Lifecycle `yaml:",inline"`
}

// DefaultMaxOutput bounds a reservation when the catalog does not know a model's output limit.
const DefaultMaxOutput int64 = 16_384

// MaxOutput is the most completion tokens one request of the model may produce.
func (m *Model) MaxOutput() int64 {
	if m.MaxOutputTokens > 0 {
		return m.MaxOutputTokens
	}
	if m.ContextLength > 0 && m.ContextLength < DefaultMaxOutput {
		return m.ContextLength
	}
	return DefaultMaxOutput
}

// PriceUnder is the model's price in credits under the pricing: from its
// ruble price when it has one, else from its dollar price.
func (m *Model) PriceUnder(p Pricing) Price {
	if m.RUB != nil {
		return DeriveRUBPrice(*m.RUB, p)
	}
	return DerivePrice(m.USD, p)
}

// Provider is the part of the id before the slash ("openai" in "openai/gpt-4o").
func (m *Model) Provider() string {
	for i := 0; i < len(m.ID); i++ {
		if m.ID[i] == '/' {
			return m.ID[:i]
		}
	}
	return ""
}

// Outputs reports whether the model produces the modality.
func (m *Model) Outputs(modality string) bool {
	for _, o := range m.OutputModalities {
		if o == modality {
			return true
		}
	}
	return false
}
