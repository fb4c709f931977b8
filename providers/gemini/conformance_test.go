package gemini_test

import (
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/conformance"
	"github.com/shlyuz/shlyuz/providers/gemini"
)

// TestConformance runs the shared provider suite against the adapter. The
// fake serves Gemini's API under /v1beta/models/ over HTTPS, its certificate
// trusted through UpstreamConfig.CAFile.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Target{
		Name: "gemini",
		NewTLS: func(t *testing.T, baseURL, caFile string) shlyuz.Provider {
			p, err := gemini.New(shlyuz.UpstreamConfig{
				Name: "fake-gemini", Protocol: "gemini", BaseURL: baseURL, APIKey: testKey, CAFile: caFile,
			})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	})
}

// TestImageConformance: Imagen (:predict) through the suite.
func TestImageConformance(t *testing.T) {
	conformance.RunImages(t, conformance.ImageTarget{
		Name: "gemini", Model: "imagen-4.0-fast-generate-001", Failed: "fault-500", Size: "1408x768",
		New: func(t *testing.T, baseURL string) shlyuz.ImageProvider {
			p, err := gemini.New(shlyuz.UpstreamConfig{Name: "fake-gemini", Protocol: "gemini", BaseURL: baseURL, APIKey: testKey})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	})
}

// TestAudioConformance: transcription (audio inline) and speech (the AUDIO
// modality, PCM wrapped as WAV or raw) through the suite. Speech comes whole,
// so there is no cut after the first chunk to check.
func TestAudioConformance(t *testing.T) {
	conformance.RunAudio(t, conformance.AudioTarget{
		Name: "gemini",
		New: func(t *testing.T, baseURL string) any {
			p, err := gemini.New(shlyuz.UpstreamConfig{Name: "fake-gemini", Protocol: "gemini", BaseURL: baseURL, APIKey: testKey})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.CloseIdleConnections)
			return p
		},
		Speech:               shlyuz.SpeechRequest{Model: "gemini-2.5-flash-preview-tts", Input: "Hello from the conformance suite.", Voice: "Kore"},
		Formats:              []string{"wav", "pcm"},
		SpeechFailed:         shlyuz.SpeechRequest{Model: "gemini-2.5-flash-preview-tts", Input: "[fail-before] hello", Voice: "Kore", Format: "wav"},
		Transcription:        shlyuz.TranscriptionRequest{Model: "gemini-2.5-flash", Language: "en", Prompt: "A test."},
		TranscriptionFormats: []string{"wav", "mp3", "ogg"},
		TranscriptionFailed:  shlyuz.TranscriptionRequest{Model: "gemini-2.5-flash", Prompt: "[fail-before]"},
		Unreadable:           "webm",
	})
}
