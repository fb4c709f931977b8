package shlyuz

import (
	"regexp"
	"testing"
	"time"
)

// zeroField is an unknown number written as 0 in catalog.json, which must
// leave the field out instead (a client would read 0 as a real value).
var zeroField = regexp.MustCompile(`"(context_length|max_output_tokens|created)":\s*0\b`)

func TestEmbeddedModelsLeaveOutUnknowns(t *testing.T) {
	if zs := zeroField.FindAll(catalogJSON, 5); len(zs) > 0 {
		t.Fatalf("catalog.json writes unknown numbers as 0: %q", zs)
	}
}

var catalogIDShape = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._:-]*$`)

func embeddedModelsByID(t *testing.T) ([]Model, map[string]Model) {
	t.Helper()
	models, err := EmbeddedModels()
	if err != nil {
		t.Fatalf("EmbeddedModels: %v", err)
	}
	byID := make(map[string]Model, len(models))
	for _, m := range models {
		byID[m.ID] = m
	}
	return models, byID
}

func TestEmbeddedModelsShape(t *testing.T) {
	models, byID := embeddedModelsByID(t)
	if len(models) < 300 {
		t.Fatalf("catalog has %d models, want at least 300", len(models))
	}
	if len(byID) != len(models) {
		t.Errorf("catalog has %d models but %d distinct ids", len(models), len(byID))
	}
	for i, m := range models {
		if !catalogIDShape.MatchString(m.ID) {
			t.Errorf("model %d: id %q is not <provider>/<model_name>", i, m.ID)
		}
		if i > 0 && models[i-1].ID >= m.ID {
			t.Errorf("model %d: id %q not sorted after %q", i, m.ID, models[i-1].ID)
		}
		if m.Name == "" {
			t.Errorf("%s: empty name", m.ID)
		}
		if m.USD.PromptPerMTok.Sign() < 0 || m.USD.CompletionPerMTok.Sign() < 0 {
			t.Errorf("%s: negative price", m.ID)
		}
		if price := m.PriceUnder(Pricing{Rate: MustDecimal("90"), K: MustDecimal("1")}); price.PromptMicro == 0 && price.CompletionMicro == 0 && (m.Image == nil || m.Image.Unit == ImageUnitToken) && !pricedByAudio(m) && (m.Video == nil || m.Video.USDPerSecond.Sign() <= 0) {
			t.Errorf("%s: free model in the catalog", m.ID)
		}
		if len(m.InputModalities) == 0 || len(m.OutputModalities) == 0 {
			t.Errorf("%s: missing modalities", m.ID)
		}
		if m.ContextLength < 0 || m.MaxOutputTokens < 0 {
			t.Errorf("%s: negative limits", m.ID)
		}
		if m.ContextLength > 0 && m.MaxOutputTokens > m.ContextLength {
			t.Errorf("%s: max output %d exceeds context %d", m.ID, m.MaxOutputTokens, m.ContextLength)
		}
	}
}

func TestEmbeddedModelsKnownPrices(t *testing.T) {
	_, byID := embeddedModelsByID(t)
	tests := []struct {
		id                 string
		prompt, completion string
	}{
		{"openai/gpt-4o", "2.5", "10"},
		{"qwen/qwen3-30b-a3b-instruct-2507", "0.04815", "0.19305"},
		// tiered in the source data: the base tier below 200k prompt tokens
		{"anthropic/claude-sonnet-4.5", "3", "15"},
		// conditional in the source data: the set without a start date
		{"anthropic/claude-sonnet-5", "2", "10"},
		{"demo/echo", "0.5", "1.5"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			m, ok := byID[tt.id]
			if !ok {
				t.Fatalf("%s not in the catalog", tt.id)
			}
			if m.USD.PromptPerMTok.Cmp(MustDecimal(tt.prompt)) != 0 {
				t.Errorf("prompt = %s USD/Mtok, want %s", m.USD.PromptPerMTok, tt.prompt)
			}
			if m.USD.CompletionPerMTok.Cmp(MustDecimal(tt.completion)) != 0 {
				t.Errorf("completion = %s USD/Mtok, want %s", m.USD.CompletionPerMTok, tt.completion)
			}
		})
	}
}

func TestEmbeddedModelsModalities(t *testing.T) {
	models, byID := embeddedModelsByID(t)
	images := 0
	for _, m := range models {
		if m.Outputs("image") {
			images++
		}
	}
	if images < 3 {
		t.Errorf("%d models with image output, want at least 3", images)
	}
	tests := []struct {
		id          string
		imageOutput bool
	}{
		{"google/gemini-2.5-flash-image", true},
		{"google/gemini-3-pro-image-preview", true},
		{"demo/image", true},
		{"demo/echo", false},
		{"demo/fast", false},
		{"openai/gpt-4o", false},
	}
	for _, tt := range tests {
		m, ok := byID[tt.id]
		if !ok {
			t.Errorf("%s not in the catalog", tt.id)
			continue
		}
		if got := m.Outputs("image"); got != tt.imageOutput {
			t.Errorf("%s: image output = %v, want %v", tt.id, got, tt.imageOutput)
		}
		if !m.Outputs("text") {
			t.Errorf("%s: no text output", tt.id)
		}
	}
}

func TestEmbeddedModelsDerivedCredits(t *testing.T) {
	_, byID := embeddedModelsByID(t)
	pricing := Pricing{Rate: MustDecimal("90"), K: MustDecimal("1.5")}
	// credits_per_1k = usd_per_1k × rate × K × 100,000 = usd_per_mtok / 1000 × 90 × 1.5 × 100,000
	tests := []struct {
		id                     string
		per1KPrompt, per1KComp string
	}{
		// 2.5 / 1000 × 13,500,000 = 33,750; 10 / 1000 × 13,500,000 = 135,000
		{"openai/gpt-4o", "33750", "135000"},
		// 0.04815 × 13,500 = 650.025; 0.19305 × 13,500 = 2,606.175
		{"qwen/qwen3-30b-a3b-instruct-2507", "650.025", "2606.175"},
		// 0.5 × 13,500 = 6,750; 1.5 × 13,500 = 20,250
		{"demo/fast", "6750", "20250"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			m, ok := byID[tt.id]
			if !ok {
				t.Fatalf("%s not in the catalog", tt.id)
			}
			p := DerivePrice(m.USD, pricing)
			if got := p.CreditsPer1KPrompt(); got.Cmp(MustDecimal(tt.per1KPrompt)) != 0 {
				t.Errorf("prompt credits per 1k = %s, want %s", got, tt.per1KPrompt)
			}
			if got := p.CreditsPer1KCompletion(); got.Cmp(MustDecimal(tt.per1KComp)) != 0 {
				t.Errorf("completion credits per 1k = %s, want %s", got, tt.per1KComp)
			}
		})
	}
}

func TestEmbeddedModelsCatalog(t *testing.T) {
	models, _ := embeddedModelsByID(t)
	c := NewCatalog(models, Pricing{Rate: MustDecimal("90"), K: MustDecimal("1.5")})
	live := 0 // a model is listed until its expiration day
	today := time.Now().UTC().Format(time.DateOnly)
	for _, m := range models {
		if m.ExpirationDate == "" || m.ExpirationDate > today {
			live++
		}
	}
	if len(c.List()) != live {
		t.Fatalf("catalog lists %d models, want %d", len(c.List()), live)
	}
	m, ok := c.Get("demo/image")
	if !ok || !m.Outputs("image") || m.Price.PromptMicro <= 0 || m.Price.CompletionMicro <= 0 {
		t.Errorf("demo/image = %+v, %v; want a priced image model", m, ok)
	}
}

// The Russian families are priced in rubles: the exchange rate does not touch them.
func TestRubleModelsIgnoreTheRate(t *testing.T) {
	models, err := EmbeddedModels()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id          string
		per1KCredit string // credits per 1k tokens at K = 1.5: rub_per_1k × K × 100,000
	}{
		{"sber/gigachat-2-lite", "30000"},  // 0.2 ₽ per 1k × 1.5 × 100,000
		{"sber/gigachat-2-max", "292500"},  // 1.95 ₽
		{"yandex/yandexgpt-pro", "180000"}, // 1.2 ₽
	} {
		c := NewCatalog(models, Pricing{Rate: MustDecimal("90"), K: MustDecimal("1.5")})
		m, ok := c.Get(tc.id)
		if !ok {
			t.Fatalf("%s is not in the catalog", tc.id)
		}
		c2 := NewCatalog(models, Pricing{Rate: MustDecimal("120"), K: MustDecimal("1.5")})
		m2, _ := c2.Get(tc.id)
		if got := m.Price.CreditsPer1KPrompt().String(); got != tc.per1KCredit || m2.Price != m.Price {
			t.Errorf("%s: %s credits per 1k (rate 120: %s), want %s", tc.id, got, m2.Price.CreditsPer1KPrompt(), tc.per1KCredit)
		}
	}
}

// pricedByAudio reports whether a model of the audio API has a price of its
// own unit (characters, minutes).
func pricedByAudio(m Model) bool {
	return m.Speech != nil && m.Speech.USDPerMChars.Sign() > 0 || m.Transcription != nil && m.Transcription.USDPerMinute.Sign() > 0
}
