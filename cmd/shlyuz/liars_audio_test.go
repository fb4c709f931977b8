package main

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// whisperCreditsPerSecond is whisper-1's price at the test pricing: $0.0001
// a second (litellm-model-prices.json: input_cost_per_second 0.0001, $0.006
// a minute) × 100 rubles a dollar × 100,000 credits a ruble.
const whisperCreditsPerSecond = 1_000

// TestTranscriptionLiars: audio whose headers or damage hide how long it
// plays is charged at least what the provider bills for what its decoder
// plays (the fake decodes with go-mp3, mewkiz/flac and Opus's TOC bytes),
// with the provider's usage and without it; a model of 30 seconds refuses
// it before it goes upstream.
func TestTranscriptionLiars(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	liars := []struct {
		name, kind, file string
		audio            []byte
	}{
		{"mp3 with a 0x00 after its first frame", "mp3", "a.mp3", mediatest.MP3WithJunk(50)},
		{"ogg whose last page says 1 s", "ogg", "a.ogg", mediatest.OggOpusClaiming(600, 1)},
		{"flac whose STREAMINFO says 1 s", "flac", "a.flac", mediatest.FLACClaiming(600, 1)},
	}
	for _, tc := range liars {
		played, ok := fake.DecodedSeconds(tc.kind, tc.audio)
		if !ok || played < 40 {
			t.Fatalf("%s: the decoder plays %.2f s", tc.name, played)
		}
		provider := int64(math.Ceil(played)) * whisperCreditsPerSecond // whisper bills whole seconds
		for _, model := range []string{"stt/whisper-1", "stt/whisper-1-fault-nousage"} {
			t.Run(tc.name+", "+model, func(t *testing.T) {
				before := balance(t, h.base, key).Data.TotalCredits
				resp := postForm(t, key, map[string]string{"model": model}, tc.file, tc.audio)
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var r transcriptionReply
				if resp.StatusCode != 200 || json.Unmarshal(body, &r) != nil {
					t.Fatalf("%d %s", resp.StatusCode, body)
				}
				debited := before - balance(t, h.base, key).Data.TotalCredits
				t.Logf("plays %.2f s: the provider bills %d credits, charged %d", played, provider, r.Usage.Credits)
				if r.Usage.Credits < provider || debited != r.Usage.Credits {
					t.Fatalf("charged %d, debited %d; the provider bills %d for %.2f s", r.Usage.Credits, debited, provider, played)
				}
			})
		}
		t.Run(tc.name+", a model of 30 seconds", func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			resp := postForm(t, key, map[string]string{"model": "stt/whisper-1-30s"}, tc.file, tc.audio)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || !strings.Contains(string(body), "at most 30 s") || resp.Header.Get("X-Generation-Id") != "" {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if after := balance(t, h.base, key).Data.TotalCredits; after != before {
				t.Fatalf("refused, yet %d credits debited", before-after)
			}
		})
	}
}
