package tokens

import (
	"math"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// ImageTokenBound is the most prompt tokens one image part may cost at a
// model, by its provider's published rule, where that is above ImageTokens:
// gpt-4o-mini counts an image as 2,833 tokens plus 5,667 per 512-pixel tile,
// at most 8 tiles (an image is scaled into 2048×2048, then its short side to
// 768: 2048×768 makes 4×2 tiles); the OpenAI models that count 32-pixel
// patches at most 1,536 patches times their multiplier (2.46 the highest);
// Gemini 1.5 and 2.x count 258 tokens per 768-pixel tile, 16 tiles for an
// image of 3,072 pixels a side; Anthropic's newer models take up to 3.75
// megapixels at width × height / 750 (5,000, and 8 of framing). Other models
// (OpenAI's gpt-4o and 4.1 at most 85 + 170 × 8) stay within ImageTokens. It
// counts an image the gateway did not read (one by URL).
func ImageTokenBound(model string) int64 {
	fam, name := modelFamily(model)
	switch {
	case strings.Contains(name, "gpt-4o-mini"):
		return 2_833 + 8*5_667
	case fam == familyOpenAI && patchModel(name):
		return imageTokens(fam, name, 32*1536, 32, model)
	case strings.HasPrefix(name, "gemini-1.5") || strings.HasPrefix(name, "gemini-2"):
		return 16 * 258
	case fam == familyAnthropic:
		return 3_750_000/750 + 8
	}
	return ImageTokens
}

// unprovenTokenizer reports the models whose makers publish no tokenizer
// the word table could be proven against (GigaChat, YandexGPT): their
// prompts are held at a token a byte, which no tokenizer with a token of
// one byte at least can exceed.
func unprovenTokenizer(model string) bool {
	id := strings.ToLower(model)
	return strings.HasPrefix(id, "sber/") || strings.HasPrefix(id, "yandex/") ||
		strings.Contains(id, "gigachat") || strings.Contains(id, "yandexgpt")
}

// ReserveFor is the reserve estimate of the prompt at a model: the text at
// a token a byte for a model whose tokenizer is unproven; each media
// part the gateway measured (Media) by its provider's rule for what it
// holds (MediaPart.Tokens) instead of ImageTokens, and any other image part
// by ImageTokenBound; of the tool-use preamble, what the model's maker adds
// (toolPreamble).
func (e PromptEstimate) ReserveFor(model string) int64 {
	r, measured := e.Reserve, int64(0)
	if e.Preamble > 0 && r < math.MaxInt64 { // a saturated sum stays so
		r = max(r-e.Preamble+min(e.Preamble, toolPreamble(model)), 0)
	}
	if unprovenTokenizer(model) {
		r = shlyuz.AddChecked(r, e.Saved)
	}
	if e.Media != nil {
		measured = int64(len(e.Media.Parts))
		if r < math.MaxInt64 { // the walk counted them as ImageTokens each (a saturated sum stays so)
			r = max(r-min(measured, e.Images)*ImageTokens, 0)
		}
		for _, p := range e.Media.Parts {
			r = shlyuz.AddChecked(r, p.Tokens(model))
		}
	}
	if rest := e.Images - measured; rest > 0 {
		if b := ImageTokenBound(model); b > ImageTokens {
			r = shlyuz.AddChecked(r, shlyuz.MulChecked(rest, b-ImageTokens))
		}
	}
	return max(r, 1)
}
