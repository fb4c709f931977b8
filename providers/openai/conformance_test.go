package openai_test

import (
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/conformance"
	"github.com/shlyuz/shlyuz/providers/openai"
)

// TestConformance runs the shared provider suite against the adapter; the
// fake serves OpenAI's protocol under /v1.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Target{
		Name: "openai",
		New: func(t *testing.T, baseURL string) shlyuz.Provider {
			return openai.New(shlyuz.UpstreamConfig{Name: "fake-openai", BaseURL: baseURL + "/v1"})
		},
	})
}

// TestImageConformance: the image API (/v1/images/generations) through the suite.
func TestImageConformance(t *testing.T) {
	conformance.RunImages(t, conformance.ImageTarget{
		Name: "openai", Model: "gpt-image-1", Failed: "fault-500", Size: "1024x1024",
		New: func(t *testing.T, baseURL string) shlyuz.ImageProvider {
			return openai.New(shlyuz.UpstreamConfig{Name: "fake-openai", BaseURL: baseURL + "/v1"})
		},
	})
}

// TestAudioConformance: speech (/v1/audio/speech) and transcription
// (/v1/audio/transcriptions) through the suite.
func TestAudioConformance(t *testing.T) {
	speech := shlyuz.SpeechRequest{Model: "tts-1", Input: "Hello from the suite.", Voice: "alloy"}
	conformance.RunAudio(t, conformance.AudioTarget{
		Name: "openai",
		New: func(t *testing.T, baseURL string) any {
			return openai.New(shlyuz.UpstreamConfig{Name: "fake-openai", BaseURL: baseURL + "/v1"}.WithDefaults())
		},
		Speech: speech, Formats: []string{"mp3", "opus", "wav", "pcm"},
		SpeechFailed:         shlyuz.SpeechRequest{Model: "fault-500", Input: "x", Voice: "alloy", Format: "mp3"},
		SpeechCut:            shlyuz.SpeechRequest{Model: "fault-cut", Input: speech.Input, Voice: "alloy", Format: "mp3"},
		Transcription:        shlyuz.TranscriptionRequest{Model: "whisper-1", Language: "en"},
		TranscriptionFormats: []string{"wav", "mp3", "ogg"}, TranscriptionReportsSeconds: true,
		TranscriptionFailed: shlyuz.TranscriptionRequest{Model: "fault-500"},
	})
}
