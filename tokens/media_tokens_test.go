package tokens

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMediaPartTokensHoldTheProvidersCount: each part is counted at least
// at what its provider's documentation says it costs (the figures of the
// documentation's own examples), and not wildly above it.
func TestMediaPartTokensHoldTheProvidersCount(t *testing.T) {
	for _, tc := range []struct {
		name   string
		model  string
		part   MediaPart
		billed int64 // the provider's documented count
		most   int64 // what the reserve may reach
	}{
		// Anthropic: tokens = width × height / 750; its table: 200×200 is 54, 1092×1092 is 1,590.
		{"Anthropic 200×200", "anthropic/claude-sonnet-4.5", MediaPart{Kind: MediaImage, Width: 200, Height: 200}, 54, 100},
		{"Anthropic 1092×1092", "anthropic/claude-sonnet-4.5", MediaPart{Kind: MediaImage, Width: 1092, Height: 1092}, 1_590, 1_700},
		// Claude's newer models: a token a 28-pixel patch, so a 2576×28 strip is 92.
		{"Anthropic 2576×28", "anthropic/claude-opus-4.7", MediaPart{Kind: MediaImage, Width: 2576, Height: 28}, 92, 120},
		{"Anthropic 8000×8000 is downscaled", "anthropic/claude-opus-4.7", MediaPart{Kind: MediaImage, Width: 8000, Height: 8000}, 1_590, 5_100},
		// OpenAI: 1024×1024 at high detail is 4 tiles, 765 tokens; 2048×4096 is 6 tiles, 1,105; gpt-4o-mini 2,833 + 5,667 a tile.
		{"gpt-4o 1024×1024", "openai/gpt-4o", MediaPart{Kind: MediaImage, Width: 1024, Height: 1024}, 765, 765},
		{"gpt-4o 2048×4096", "openai/gpt-4o", MediaPart{Kind: MediaImage, Width: 2048, Height: 4096}, 1_105, 1_105},
		{"gpt-4o-mini 1024×1024", "openai/gpt-4o-mini", MediaPart{Kind: MediaImage, Width: 1024, Height: 1024}, 2_833 + 4*5_667, 2_833 + 4*5_667},
		// gpt-4.1-mini: 1024×1024 is 1,024 patches × 1.62 = 1,659.
		{"gpt-4.1-mini 1024×1024", "openai/gpt-4.1-mini", MediaPart{Kind: MediaImage, Width: 1024, Height: 1024}, 1_659, 2_600},
		// Gemini: within 384 pixels 258; 960×540 is 6 tiles of 360, 1,548.
		{"Gemini 2.5 300×300", "google/gemini-2.5-flash", MediaPart{Kind: MediaImage, Width: 300, Height: 300}, 258, 1_120},
		{"Gemini 2.5 960×540", "google/gemini-2.5-flash", MediaPart{Kind: MediaImage, Width: 960, Height: 540}, 1_548, 1_548},
		// PDFs: Anthropic 1,500–3,000 text tokens a page plus the page's image; Gemini 258 a page (560 on Gemini 3).
		{"100 pages to Anthropic", "anthropic/claude-sonnet-4.5", MediaPart{Kind: MediaPDF, Pages: 100}, 100 * (3_000 + 1_590), 100 * 5_000},
		{"1,000 pages to Gemini 2.5", "google/gemini-2.5-pro", MediaPart{Kind: MediaPDF, Pages: 1000}, 1000 * 258, 1000 * 600},
		{"1,000 pages to Gemini 3", "google/gemini-3-flash-preview", MediaPart{Kind: MediaPDF, Pages: 1000}, 1000 * 560, 1000 * 600},
		{"100 pages elsewhere", "mistralai/mistral-medium-3", MediaPart{Kind: MediaPDF, Pages: 100}, 100 * (3_000 + 1_590), 100 * 5_000},
		// Gemini: video 258 a second at a frame a second plus 32 of sound; audio 32 a second.
		{"an hour of video to Gemini", "google/gemini-2.5-flash", MediaPart{Kind: MediaVideo, Seconds: 3600}, 3600 * (258 + 32), 3600 * 330},
		{"an hour of audio to Gemini", "google/gemini-2.5-flash", MediaPart{Kind: MediaAudio, Seconds: 3600}, 3600 * 32, 3600 * 32},
		// An image by URL: Anthropic's newer models take up to 3.75 megapixels at width × height / 750;
		// OpenAI's patch models at most 1,536 patches times 2.46.
		{"an image by URL to Claude", "anthropic/claude-opus-4.8", MediaPart{Kind: MediaImageURL}, 5_000, 5_008},
		{"an image by URL to gpt-5-mini", "openai/gpt-5-mini", MediaPart{Kind: MediaImageURL}, 3_779, 3_779},
		{"an image by URL to gpt-4o-mini", "openai/gpt-4o-mini", MediaPart{Kind: MediaImageURL}, 2_833 + 8*5_667, 2_833 + 8*5_667},
	} {
		got := tc.part.Tokens(tc.model)
		if got < tc.billed || got > tc.most {
			t.Errorf("%s: %d tokens, want %d to %d", tc.name, got, tc.billed, tc.most)
		}
	}
}

// TestReserveForCountsMeasuredParts: measured parts replace the walk's
// ImageTokens each; parts the walk counted but nobody measured stay at the
// model's image bound.
func TestReserveForCountsMeasuredParts(t *testing.T) {
	e := PromptEstimate{Reserve: 100 + 2*ImageTokens, Images: 2,
		Media: &MediaParts{Parts: []MediaPart{{Kind: MediaPDF, Pages: 10}}}}
	if got, want := e.ReserveFor("google/gemini-2.5-pro"), int64(100+10*pdfPageTokensGemini+16*258); got != want {
		t.Fatalf("ReserveFor %d, want %d", got, want)
	}
	if got, want := (PromptEstimate{Reserve: 100 + ImageTokens, Images: 1}).ReserveFor("mistralai/mistral-medium-3"), int64(100+ImageTokens); got != want {
		t.Fatalf("unmeasured: %d, want %d", got, want)
	}
}

// TestUnprovenTokenizersAreHeldPerByte: GigaChat and YandexGPT publish no
// tokenizer to prove the word table against, so their prompts are held at
// a token a byte of the text (no tokenizer whose tokens are a byte or more
// counts more); the models whose tokenizers the table is proven against
// keep its savings.
func TestUnprovenTokenizersAreHeldPerByte(t *testing.T) {
	text := strings.Repeat("The gateway reserves what a prompt may cost before it goes upstream. ", 20)
	msgs, _ := json.Marshal([]map[string]string{{"role": "user", "content": text}})
	tools := json.RawMessage(`[{"type":"function","function":{"name":"read_file","description":"` + text + `","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]`)
	e, err := EstimatePrompt(msgs)
	if err != nil {
		t.Fatal(err)
	}
	defs := EstimateDefinitions(tools)
	bytes := int64(len(text))
	for _, tc := range []struct {
		model   string
		perByte bool
	}{
		{"sber/gigachat-2-max", true},
		{"yandex/yandexgpt-pro", true},
		{"openai/gpt-5", false},
		{"anthropic/claude-sonnet-4.5", false},
	} {
		for _, est := range []PromptEstimate{e, defs} {
			got := est.ReserveFor(tc.model)
			if tc.perByte && got < bytes {
				t.Errorf("%s: reserve %d, below the text's %d bytes", tc.model, got, bytes)
			}
			if !tc.perByte && got >= bytes {
				t.Errorf("%s: reserve %d, not below the text's %d bytes: the word table saved nothing", tc.model, got, bytes)
			}
		}
	}
}
