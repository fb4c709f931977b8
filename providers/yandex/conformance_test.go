package yandex_test

import (
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/conformance"
	"github.com/shlyuz/shlyuz/providers/yandex"
)

// TestConformance runs the suite every adapter passes. YandexGPT's native text
// models take no image input, so the suite expects the image request refused.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Target{
		Name:     "yandex",
		NoVision: "YandexGPT's native completion API takes text only",
		New: func(t *testing.T, baseURL string) shlyuz.Provider {
			p, err := yandex.New(shlyuz.UpstreamConfig{
				Name: "yandex-fake", Protocol: "yandex", BaseURL: baseURL,
				FolderID: "b1gfakefolder", APIKey: "AQVN-fake-key",
			})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	})
}

// TestImageConformance: YandexART (asynchronous operations) through the suite.
func TestImageConformance(t *testing.T) {
	conformance.RunImages(t, conformance.ImageTarget{
		Name: "yandex", Model: "yandex-art", Failed: "fault-failed", Size: "1024x1024",
		New: func(t *testing.T, baseURL string) shlyuz.ImageProvider {
			p, err := yandex.New(shlyuz.UpstreamConfig{Name: "yandex-fake", Protocol: "yandex", BaseURL: baseURL,
				FolderID: "b1gfakefolder", APIKey: "AQVN-fake-key"})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	})
}

// TestAudioConformance: SpeechKit through the suite. Speech v1
// (speechkit-tts) with short audio transcribed by v1, which reports billed
// seconds; speech v3 (speechkit-tts-v3) with MP3 transcribed by v3, which
// does not. The fake fails speech by a marker in the text and recognition by
// a fault as its language.
func TestAudioConformance(t *testing.T) {
	newP := func(t *testing.T, baseURL string) any {
		p, err := yandex.New(shlyuz.UpstreamConfig{Name: "yandex-fake", Protocol: "yandex", BaseURL: baseURL,
			FolderID: "b1gfakefolder", APIKey: "AQVN-fake-key"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, model, stt string
		seconds          bool
	}{
		{"yandex-v1", "speechkit-tts", "wav ogg", true},
		{"yandex-v3", "speechkit-tts-v3", "mp3", false},
	} {
		speech := shlyuz.SpeechRequest{Model: tc.model, Input: "Привет из набора проверок.", Voice: "alena"}
		conformance.RunAudio(t, conformance.AudioTarget{
			Name: tc.name, New: newP,
			Speech: speech, Formats: []string{"mp3", "opus", "wav", "pcm"},
			SpeechFailed:         shlyuz.SpeechRequest{Model: tc.model, Input: "[fail-before] x", Voice: "alena", Format: "mp3"},
			SpeechCut:            shlyuz.SpeechRequest{Model: tc.model, Input: "[fail-after] " + strings.Repeat(speech.Input, 4), Voice: "alena", Format: "mp3"},
			Transcription:        shlyuz.TranscriptionRequest{Model: "speechkit-stt", Language: "ru"},
			TranscriptionFormats: strings.Fields(tc.stt), TranscriptionReportsSeconds: tc.seconds,
			TranscriptionFailed: shlyuz.TranscriptionRequest{Model: "speechkit-stt", Language: "fault-500"},
			Unreadable:          "webm",
		})
	}
}
