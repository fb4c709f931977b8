package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// mediaCase is one media part sent to one model through one protocol: the
// provider bills at least billed prompt tokens for its media (its
// documented count of what the file holds: pages × tokens a page, seconds ×
// tokens a second), or the gateway refuses it before it goes upstream.
type mediaCase struct {
	name, path, model string
	body              func(marker string) map[string]any
	billed            int64 // 0: refused with 400
}

func base64Of(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// chatWithPart is a chat request whose user message is marker's text and part.
func chatWithPart(model string, part map[string]any) func(string) map[string]any {
	return func(marker string) map[string]any {
		return map[string]any{"model": model, "max_tokens": 16, "messages": []map[string]any{{"role": "user",
			"content": []map[string]any{{"type": "text", "text": marker}, part}}}}
	}
}

func mediaCases() []mediaCase {
	pdf100, pdf1000 := mediatest.PDF(100), mediatest.PDF(1000)
	anthropicPDF := int64(100 * fake.AnthropicPDFPageTokens)
	return []mediaCase{
		{name: "100-page PDF to Anthropic as a document block", path: "/api/v1/messages", model: "claude/model", billed: anthropicPDF,
			body: func(marker string) map[string]any {
				return map[string]any{"model": "claude/model", "max_tokens": 16, "messages": []map[string]any{{"role": "user", "content": []map[string]any{
					{"type": "document", "source": map[string]any{"type": "base64", "media_type": "application/pdf", "data": base64Of(pdf100)}},
					{"type": "text", "text": marker}}}}}
			}},
		{name: "100-page PDF to Anthropic as a chat file part", path: "/api/v1/chat/completions", model: "claude/model", billed: anthropicPDF,
			body: chatWithPart("claude/model", map[string]any{"type": "file", "file": map[string]any{"filename": "a.pdf", "file_data": "data:application/pdf;base64," + base64Of(pdf100)}})},
		{name: "100-page PDF to Anthropic as a Responses input_file", path: "/api/v1/responses", model: "claude/model", billed: anthropicPDF,
			body: func(marker string) map[string]any {
				return map[string]any{"model": "claude/model", "max_output_tokens": 16, "input": []map[string]any{{"role": "user", "content": []map[string]any{
					{"type": "input_text", "text": marker},
					{"type": "input_file", "filename": "a.pdf", "file_data": "data:application/pdf;base64," + base64Of(pdf100)}}}}}
			}},
		{name: "PDF to Anthropic by URL", path: "/api/v1/messages", model: "claude/model",
			body: func(marker string) map[string]any {
				return map[string]any{"model": "claude/model", "max_tokens": 16, "messages": []map[string]any{{"role": "user", "content": []map[string]any{
					{"type": "document", "source": map[string]any{"type": "url", "url": "https://example.com/100-pages.pdf"}},
					{"type": "text", "text": marker}}}}}
			}},
		{name: "100-page PDF whose page tree claims 1 page", path: "/api/v1/chat/completions", model: "claude/model",
			body: chatWithPart("claude/model", map[string]any{"type": "file", "file": map[string]any{"file_data": "data:application/pdf;base64," + base64Of(mediatest.PDFClaiming(100, 1))}})},
		{name: "1,000-page PDF to Gemini", path: "/api/v1/chat/completions", model: "gemini/model", billed: 1000 * fake.GeminiPDFPageTokens,
			body: chatWithPart("gemini/model", map[string]any{"type": "file", "file": map[string]any{"filename": "a.pdf", "file_data": "data:application/pdf;base64," + base64Of(pdf1000)}})},
		{name: "an hour of video as a data URL to Gemini", path: "/api/v1/chat/completions", model: "gemini/model",
			billed: 3600 * (fake.GeminiVideoSecondTokens + fake.GeminiAudioTokensPerSecond),
			body:   chatWithPart("gemini/model", map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:video/mp4;base64," + base64Of(mediatest.MP4Still(3600))}})},
		{name: "an hour of audio whose FLAC STREAMINFO says 1 s, as input_audio to Gemini", path: "/api/v1/chat/completions", model: "gemini/model",
			billed: 3600 * fake.GeminiAudioTokensPerSecond,
			body:   chatWithPart("gemini/model", map[string]any{"type": "input_audio", "input_audio": map[string]any{"format": "flac", "data": base64Of(mediatest.FLACClaiming(3600, 1))}})},
		{name: "video by URL", path: "/api/v1/chat/completions", model: "gemini/model",
			body: chatWithPart("gemini/model", map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/hour.mp4"}})},
		{name: "audio the gateway cannot walk", path: "/api/v1/chat/completions", model: "gemini/model",
			body: chatWithPart("gemini/model", map[string]any{"type": "input_audio", "input_audio": map[string]any{"format": "aac", "data": base64Of(bytes.Repeat([]byte{0xFF, 0xF1, 0x50, 0x80}, 2000))}})},
	}
}

// TestMediaPartsAreReservedByWhatTheyHold: every media part is reserved
// at least at what the provider bills for its content. With a balance
// enough for it, the call succeeds and is charged the provider's count,
// at least its documented count for the file; with one credit less than
// the provider's charge (and the completion's hold), the call is refused
// 402 before it goes upstream. What the gateway cannot measure is refused
// 400 before it goes upstream, and costs nothing.
func TestMediaPartsAreReservedByWhatTheyHold(t *testing.T) {
	var seen atomic.Pointer[string] // the markers the fake saw
	see := func(r *http.Request, body []byte) {
		for {
			old := seen.Load()
			s := ""
			if old != nil {
				s = *old
			}
			s += string(body[:min(len(body), 4096)]) + "\n"
			if seen.CompareAndSwap(old, &s) {
				return
			}
		}
	}
	onFakeRequest.Store(&see)
	defer onFakeRequest.Store(nil)
	sawMarker := func(marker string) bool {
		s := seen.Load()
		return s != nil && strings.Contains(*s, marker)
	}

	for i, tc := range mediaCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.billed == 0 {
				marker := fmt.Sprintf("media-refused-%d-%d", i, counter.Add(1))
				_, key := account(t, h.base, 1_000_000_000, nil)
				before := balance(t, h.base, key).Data.TotalCredits
				st, _, raw := postMedia(t, tc.path, key, tc.body(marker))
				if st != 400 {
					t.Fatalf("%d %s, want 400", st, raw)
				}
				if sawMarker(marker) {
					t.Fatal("the request went upstream")
				}
				if after := balance(t, h.base, key).Data.TotalCredits; after != before {
					t.Fatalf("charged %d for a refused part", before-after)
				}
				t.Logf("refused: %s", raw)
				return
			}
			marker := fmt.Sprintf("media-served-%d-%d", i, counter.Add(1))
			_, key := account(t, h.base, 1_000_000_000, nil)
			before := balance(t, h.base, key).Data.TotalCredits
			st, gen, raw := postMedia(t, tc.path, key, tc.body(marker))
			if st != 200 {
				t.Fatalf("%d %s", st, raw)
			}
			g := mediaGeneration(t, key, gen)
			if g.Data.TokensPrompt < tc.billed {
				t.Fatalf("prompt tokens %d, below the provider's documented %d for the file", g.Data.TokensPrompt, tc.billed)
			}
			if after := balance(t, h.base, key).Data.TotalCredits; before-after != g.Data.Credits ||
				g.Data.Credits != promptCredits*g.Data.TokensPrompt+completionCredits*g.Data.TokensCompletion {
				t.Fatalf("debited %d, generation %+v", before-after, g.Data)
			}

			// One credit short of the provider's prompt charge and the completion's hold: refused before upstream.
			short := promptCredits*g.Data.TokensPrompt + completionCredits*16 - 1
			marker = fmt.Sprintf("media-short-%d-%d", i, counter.Add(1))
			_, poor := account(t, h.base, short, nil)
			st, _, raw = postMedia(t, tc.path, poor, tc.body(marker))
			if st != 402 {
				t.Fatalf("with %d credits: %d %s, want 402 (the hold is below the provider's charge)", short, st, raw)
			}
			if sawMarker(marker) {
				t.Fatal("the short request went upstream")
			}
			if left := balance(t, h.base, poor).Data.TotalCredits; left != short {
				t.Fatalf("the refused request cost %d", short-left)
			}
			t.Logf("provider billed %d prompt tokens (documented media %d), %d credits; one credit less is refused", g.Data.TokensPrompt, tc.billed, g.Data.Credits)
		})
	}
}

// postMedia posts body to path with key; it returns the status, the
// generation id and the body.
func postMedia(t *testing.T, path, key string, body any) (int, string, []byte) {
	t.Helper()
	resp, out := postWith(t, path, body, map[string]string{"Authorization": "Bearer " + key})
	return resp.StatusCode, resp.Header.Get("X-Generation-Id"), out
}

// mediaGeneration is the generation record of id.
func mediaGeneration(t *testing.T, key, id string) generationView {
	t.Helper()
	var g generationView
	if id == "" {
		t.Fatal("no X-Generation-Id")
	}
	waitFor(t, 10e9, "the generation record", func() bool {
		return call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g) == 200
	})
	return g
}
