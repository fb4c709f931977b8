package salute_test

import (
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/conformance"
	"github.com/shlyuz/shlyuz/providers/salute"
)

// TestAudioConformance: synthesis (opus, wav, pcm) and recognition (wav,
// mp3, ogg) through the suite, against the fake's SaluteSpeech under
// /salute/, which with no APIKey set takes any authorization key.
func TestAudioConformance(t *testing.T) {
	conformance.RunAudio(t, conformance.AudioTarget{
		Name: "salute",
		New: func(t *testing.T, baseURL string) any {
			p, err := salute.New(shlyuz.UpstreamConfig{Name: "salute-conformance", Protocol: "salute",
				BaseURL: baseURL + "/salute/rest/v1", AuthURL: baseURL + "/salute/api/v2/oauth", APIKey: "Y29uZm9ybWFuY2U6c2VjcmV0"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.CloseIdleConnections)
			return p
		},
		Speech:               shlyuz.SpeechRequest{Model: "salute-tts", Input: "Привет, это проверка синтеза.", Voice: "May_24000"},
		Formats:              []string{"opus", "wav", "pcm"},
		SpeechFailed:         shlyuz.SpeechRequest{Model: "salute-tts", Input: "[fail-before] Привет", Voice: "May_24000", Format: "opus"},
		SpeechCut:            shlyuz.SpeechRequest{Model: "salute-tts", Input: "[fail-after] " + strings.Repeat("Привет. ", 30), Voice: "May_24000", Format: "wav"},
		Transcription:        shlyuz.TranscriptionRequest{Model: "salute-stt", Language: "ru"},
		TranscriptionFormats: []string{"wav", "mp3", "ogg"},
		TranscriptionFailed:  shlyuz.TranscriptionRequest{Model: "fault-500", Language: "ru"},
		Unreadable:           "webm",
	})
}
