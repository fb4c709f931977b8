package tokens

import (
	"math"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// MediaKind is what a media part of a prompt holds.
type MediaKind uint8

const (
	// MediaImage is an image whose size was read from its header.
	MediaImage MediaKind = iota + 1
	// MediaImageURL is an image by URL: counted as the model's largest image.
	MediaImageURL
	// MediaPDF is a PDF whose pages were counted by a PDF reader.
	MediaPDF
	// MediaAudio is audio whose decoded duration was bounded.
	MediaAudio
	// MediaVideo is video whose tracks' duration was read.
	MediaVideo
)

// MediaParts are the media parts of a prompt, in order.
type MediaParts struct{ Parts []MediaPart }

// MediaPart is one media part of a prompt as the gateway measured it.
type MediaPart struct {
	Kind          MediaKind
	Width, Height int   // MediaImage
	Pages         int   // MediaPDF
	Seconds       int64 // MediaAudio, MediaVideo: whole seconds, rounded up
}

// The per-unit rates below are each provider's documented count, or above
// it where a provider's count depends on what the gateway does not read (a
// page's density of text, a resolution setting); they reserve, and the
// upstream's reported usage is what is billed.
const (
	// pdfPageTokensAnthropic: Anthropic bills a PDF page as its text
	// (1,500 to 3,000 tokens a page by its documentation) plus the page as
	// an image (up to about 1,600 tokens).
	pdfPageTokensAnthropic = 3_000 + 1_800
	// pdfPageTokensGemini: Gemini counts a page as 258 tokens (2.x) or
	// 560 at the default media resolution of Gemini 3.
	pdfPageTokensGemini = 600
	// pdfPageTokensOther: an upstream that sends a PDF on to a model as text
	// and page images (OpenAI's file parts, OpenRouter's) is held to
	// Anthropic's figure, the highest documented.
	pdfPageTokensOther = pdfPageTokensAnthropic
	// audioSecondTokens: Gemini counts 32 tokens a second of audio; OpenAI
	// a token per 100 ms of input audio (10 a second).
	audioSecondTokens = 32
	// videoSecondTokens: Gemini samples a frame a second at 258 tokens
	// (280 at Gemini 3's high resolution) and its audio at 32 a second.
	videoSecondTokens = 280 + 32 + 8
)

// family is the provider whose rules count a model's media parts.
type family uint8

const (
	familyOther family = iota
	familyAnthropic
	familyGemini
	familyOpenAI
)

// modelFamily is the provider whose rules count a model's media, by its
// id (a catalog id names its maker first: anthropic/claude-…, google/gemini-…),
// and the model's own name.
func modelFamily(model string) (family, string) {
	id := strings.ToLower(model)
	name := id[strings.LastIndexByte(id, '/')+1:]
	switch {
	case strings.Contains(id, "claude"), strings.HasPrefix(id, "anthropic/"):
		return familyAnthropic, name
	case strings.Contains(id, "gemini"), strings.Contains(id, "gemma"), strings.HasPrefix(id, "google/"):
		return familyGemini, name
	case strings.HasPrefix(id, "openai/"), strings.HasPrefix(name, "gpt-"), strings.HasPrefix(name, "o1"), strings.HasPrefix(name, "o3"),
		strings.HasPrefix(name, "o4"), strings.HasPrefix(name, "chatgpt"):
		return familyOpenAI, name
	}
	return familyOther, name
}

// Tokens is the most prompt tokens the part may cost at a model, by its
// provider's rule.
func (p MediaPart) Tokens(model string) int64 {
	fam, name := modelFamily(model)
	switch p.Kind {
	case MediaImage:
		return imageTokens(fam, name, p.Width, p.Height, model)
	case MediaPDF:
		rate := int64(pdfPageTokensOther)
		switch fam {
		case familyAnthropic:
			rate = pdfPageTokensAnthropic
		case familyGemini:
			rate = pdfPageTokensGemini
		}
		return shlyuz.MulChecked(int64(p.Pages), rate)
	case MediaAudio:
		return shlyuz.MulChecked(max(p.Seconds, 1), audioSecondTokens)
	case MediaVideo:
		return shlyuz.MulChecked(max(p.Seconds, 1), videoSecondTokens)
	}
	return ImageTokenBound(model)
}

// imageTokens is an image's tokens by its provider's rule for its size:
// Anthropic's width × height / 750 after its downscale (held to a long side
// of 2,576 pixels and 3.75 megapixels, the largest its newer models take),
// or its newer models' 28-pixel patches where they count more;
// OpenAI's 512-pixel tiles after fitting 2048 and scaling the short side to
// 768 (85 + 170 a tile; gpt-4o-mini 2,833 + 5,667), or 32-pixel patches
// (at most 1,536, times the model's multiplier, 2.46 the highest) for the
// models counted so; Gemini's 258 a tile (an image within 384 pixels is one
// tile; larger ones are cut into tiles of a third more than their short
// side's two thirds, 256 to 768 pixels), at least Gemini 3's 1,120 of a
// high-resolution image. Other providers: ImageTokenBound.
func imageTokens(fam family, name string, w, h int, model string) int64 {
	fw, fh := float64(w), float64(h)
	switch fam {
	case familyAnthropic:
		if s := min(1, 2576/max(fw, fh), math.Sqrt(3_750_000/(fw*fh))); s < 1 {
			fw, fh = math.Ceil(fw*s), math.Ceil(fh*s)
		}
		patches := math.Ceil(fw/28) * math.Ceil(fh/28) // the newer models' 28-pixel patches: more for a thin image
		return int64(max(math.Ceil(fw*fh/750), patches)) + 8
	case familyOpenAI:
		if patchModel(name) {
			patches := math.Ceil(fw/32) * math.Ceil(fh/32)
			return int64(math.Ceil(min(patches, 1536) * 2.46))
		}
		if s := min(1, 2048/max(fw, fh)); s < 1 {
			fw, fh = fw*s, fh*s
		}
		if s := 768 / min(fw, fh); s < 1 {
			fw, fh = fw*s, fh*s
		}
		tiles := int64(math.Ceil(fw/512) * math.Ceil(fh/512))
		if strings.Contains(name, "gpt-4o-mini") {
			return 2_833 + 5_667*tiles
		}
		return 85 + 170*tiles
	case familyGemini:
		tiles := 1.0
		if w > 384 || h > 384 {
			tile := math.Floor(min(max(min(fw, fh)/1.5, 256), 768))
			tiles = math.Ceil(fw/tile) * math.Ceil(fh/tile)
		}
		return max(int64(tiles)*258, 1_120)
	}
	return ImageTokenBound(model)
}

// patchModel reports the OpenAI models that count an image in 32-pixel
// patches.
func patchModel(name string) bool {
	for _, p := range []string{"gpt-4.1-mini", "gpt-4.1-nano", "o4-mini", "gpt-5-mini", "gpt-5-nano"} {
		if strings.Contains(name, p) {
			return true
		}
	}
	return false
}
