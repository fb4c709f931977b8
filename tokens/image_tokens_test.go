package tokens

import (
	"encoding/json"
	"testing"
)

func TestReserveForCountsImagesByTheModelsRule(t *testing.T) {
	e, err := EstimatePrompt(json.RawMessage(`[{"role":"user","content":[{"type":"text","text":"what is it"},{"type":"image_url","image_url":{"url":"https://x/y.png"}},{"type":"image_url","image_url":{"url":"https://x/z.png"}}]}]`))
	if err != nil || e.Images != 2 {
		t.Fatalf("%+v %v", e, err)
	}
	for model, extra := range map[string]int64{
		"openai/gpt-4o-mini":          2 * (2_833 + 8*5_667 - ImageTokens), // OpenAI's vision pricing: 2,833 + 5,667 a tile
		"google/gemini-2.5-pro":       2 * (16*258 - ImageTokens),          // Gemini: 258 a 768-px tile
		"openai/gpt-4o":               0,
		"anthropic/claude-sonnet-4.5": 2 * (3_750_000/750 + 8 - ImageTokens), // Anthropic: up to 3.75 MP at w×h/750
		"mistralai/mistral-medium-3":  0,
	} {
		if got := e.ReserveFor(model); got != e.Reserve+extra {
			t.Errorf("%s: reserve %d, want %d", model, got, e.Reserve+extra)
		}
	}
}
