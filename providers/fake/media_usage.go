package fake

import (
	"encoding/base64"
	"math"
	"regexp"
	"strings"

	"github.com/shlyuz/shlyuz/media"
)

// The prompt tokens of documents and video, counted as each provider
// documents its count, on the fake's own reading of the file.
const (
	// AnthropicPDFPageTokens: Anthropic bills a PDF page as its text, 1,500
	// to 3,000 tokens by its documentation (the fake takes the dense end),
	// plus the page as an image (about 1,600 tokens for a page at 1.15
	// megapixels).
	AnthropicPDFPageTokens = 3_000 + 1_600
	// GeminiPDFPageTokens: "each document page is equivalent to 258 tokens"
	// (Gemini 2.x); Gemini3PDFPageTokens: 560 at Gemini 3's default media
	// resolution for PDFs.
	GeminiPDFPageTokens  = 258
	Gemini3PDFPageTokens = 560
	// GeminiVideoSecondTokens: a frame a second at 258 tokens, and the
	// soundtrack at GeminiAudioTokensPerSecond.
	GeminiVideoSecondTokens = 258
)

// pdfPage matches a page object of an uncompressed PDF ("/Type /Page",
// not "/Type /Pages").
var pdfPage = regexp.MustCompile(`/Type\s*/Page([^s]|$)`)

// pdfPages counts the page objects of a PDF, as a renderer would find them
// in the fake's test files (uncompressed object bodies).
func pdfPages(data []byte) int { return len(pdfPage.FindAll(data, -1)) }

// pdfBase64Pages is pdfPages of base64 data.
func pdfBase64Pages(b64 string) int {
	data, _ := base64.StdEncoding.DecodeString(b64)
	return pdfPages(data)
}

// videoSeconds is how long an MP4's video track plays, whole seconds up.
func videoSeconds(data []byte) int {
	info, err := media.ProbeMP4(data)
	if err != nil {
		return 0
	}
	return int(math.Ceil(info.Seconds))
}

// geminiMedia adds to the prompt the tokens of an inline document or video
// the way Gemini counts them (images and audio are counted elsewhere); false
// when the part is neither.
func geminiMedia(model, mime, b64 string, p *Prompt) bool {
	switch {
	case mime == "application/pdf":
		rate := GeminiPDFPageTokens
		if strings.HasPrefix(model, "gemini-3") {
			rate = Gemini3PDFPageTokens
		}
		p.Document += pdfBase64Pages(b64) * rate
	case strings.HasPrefix(mime, "video/"):
		data, _ := base64.StdEncoding.DecodeString(b64)
		s := videoSeconds(data)
		p.Video += s * GeminiVideoSecondTokens
		p.Audio += s * GeminiAudioTokensPerSecond
	default:
		return false
	}
	return true
}
