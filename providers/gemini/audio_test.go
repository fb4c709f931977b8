package gemini_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// TestTranscribeAudio: the audio goes inline with its MIME type, and the
// usage comes from usageMetadata, the audio tokens from its AUDIO modality.
func TestTranscribeAudio(t *testing.T) {
	for _, c := range []struct {
		format, mime string
		audio        []byte
	}{
		{"wav", "audio/wav", mediatest.WAV(2, 16000)},
		{"mp3", "audio/mp3", mediatest.MP3(3)},
		{"ogg", "audio/ogg", mediatest.OggOpus(1.5)},
	} {
		t.Run(c.format, func(t *testing.T) {
			u := startFake(t, fake.Options{APIKey: testKey})
			p := u.provider(t, nil)
			const prompt = "Имена: Шлюз."
			tr, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Model: "gemini-2.5-flash",
				Audio: c.audio, Format: c.format, Language: "ru", Prompt: prompt})
			if err != nil {
				t.Fatal(err)
			}
			d, _ := media.AudioSeconds(c.format, c.audio)
			secs := d.Float64()
			if tr.Text != fake.Transcript(secs) || tr.Language != "ru" || tr.Duration != 0 {
				t.Errorf("transcription %+v, want %q", tr, fake.Transcript(secs))
			}
			var sent struct {
				Contents []struct {
					Parts []struct {
						Text       string `json:"text"`
						InlineData *struct{ MimeType, Data string }
					} `json:"parts"`
				} `json:"contents"`
			}
			if err := json.Unmarshal(u.Fake.LastRequest(), &sent); err != nil || len(sent.Contents) != 1 || len(sent.Contents[0].Parts) != 2 {
				t.Fatalf("sent %s", u.Fake.LastRequest())
			}
			parts := sent.Contents[0].Parts
			if parts[1].InlineData == nil || parts[1].InlineData.MimeType != c.mime ||
				!strings.Contains(parts[0].Text, prompt) || !strings.Contains(parts[0].Text, `"ru"`) {
				t.Errorf("parts %+v", parts)
			}
			text := len([]rune(parts[0].Text)) / 4
			audio := int64(secs*fake.GeminiAudioTokensPerSecond + 0.999999)
			want := shlyuz.AudioUsage{TextTokens: int64(text), AudioTokens: audio, OutputTokens: int64(len(tr.Text) / 4)}
			if tr.Usage == nil || *tr.Usage != want {
				t.Errorf("usage %+v, want %+v", tr.Usage, want)
			}
			if !strings.HasSuffix(u.lastURL(), "/models/gemini-2.5-flash:generateContent") {
				t.Errorf("URL %s", u.lastURL())
			}
		})
	}
}

func TestTranscribeRefused(t *testing.T) {
	u := startFake(t, fake.Options{APIKey: testKey})
	p := u.provider(t, nil)
	for _, format := range []string{"webm", "m4a", "pcm"} {
		_, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Model: "gemini-2.5-flash", Audio: []byte("xxxx"), Format: format})
		e := adaptertest.AsError(t, err, 400, "unsupported_format", false)
		if e.Param == nil || *e.Param != "file" || !strings.Contains(e.Message, "wav, mp3, aac, ogg, flac and aiff") {
			t.Errorf("%s: %+v", format, e)
		}
	}
	if u.Fake.Requests() != 0 {
		t.Error("the upstream was called")
	}
	// A prompt that asks the fake to fail: an upstream fault.
	_, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Model: "gemini-2.5-flash", Audio: mediatest.MP3(1), Format: "mp3", Prompt: "[fail-before]"})
	adaptertest.AsError(t, err, 502, "upstream_error", true)
}

// TestSpeakAudio: the PCM Gemini answers comes as a WAV whose duration
// matches the fake's speech, or raw for pcm; the usage is the prompt's
// tokens and the audio's.
func TestSpeakAudio(t *testing.T) {
	const input = "Hello from the gateway, this is a test."
	samples := len(fake.Speech(input, "pcm")) / 2
	secs := float64(samples) / 24000
	for _, format := range []string{"wav", "pcm"} {
		t.Run(format, func(t *testing.T) {
			u := startFake(t, fake.Options{APIKey: testKey})
			p := u.provider(t, nil)
			a, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: "gemini-2.5-flash-preview-tts", Input: input, Voice: "Kore", Format: format})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := io.ReadAll(a)
			if err != nil {
				t.Fatal(err)
			}
			switch format {
			case "wav":
				w, ok := media.ParseWAV(b)
				d, exact := media.AudioSeconds("wav", b)
				if !ok || w.Rate != 24000 || w.Channels != 1 || w.Bits != 16 || !exact || d.Float64() != secs {
					t.Errorf("WAV %+v ok=%v, %v s, want %v s", w.Rate, ok, d, secs)
				}
			case "pcm":
				if len(b) != 2*samples || media.SniffAudio(b) != "" {
					t.Errorf("PCM of %d bytes, want %d", len(b), 2*samples)
				}
			}
			want := shlyuz.AudioUsage{TextTokens: int64(len(input) / 4), AudioTokens: int64(secs*fake.GeminiAudioTokensPerSecond + 0.999999)}
			if u := a.Usage(); u == nil || *u != want {
				t.Errorf("usage %+v, want %+v", u, want)
			}
			if !strings.Contains(string(u.Fake.LastRequest()), `"speechConfig":{"voiceConfig":{"prebuiltVoiceConfig":{"voiceName":"Kore"}}}`) {
				t.Errorf("sent %s", u.Fake.LastRequest())
			}
		})
	}
}

func TestSpeakRefused(t *testing.T) {
	u := startFake(t, fake.Options{APIKey: testKey})
	p := u.provider(t, nil)
	ctx := context.Background()
	_, err := p.Speak(ctx, &shlyuz.SpeechRequest{Model: "gemini-2.5-flash-preview-tts", Input: "hi", Format: "mp3"})
	if e := adaptertest.AsError(t, err, 400, "unsupported_format", false); *e.Param != "response_format" {
		t.Errorf("param %v", *e.Param)
	}
	if u.Fake.Requests() != 0 {
		t.Error("the upstream was called")
	}
	// The fake, as Gemini, knows its voices and which models speak.
	_, err = p.Speak(ctx, &shlyuz.SpeechRequest{Model: "gemini-2.5-flash-preview-tts", Input: "hi", Voice: "alloy", Format: "wav"})
	adaptertest.AsError(t, err, 400, "invalid_value", false)
	_, err = p.Speak(ctx, &shlyuz.SpeechRequest{Model: "gemini-2.5-flash", Input: "hi", Format: "wav"})
	adaptertest.AsError(t, err, 400, "invalid_value", false)
	_, err = p.Speak(ctx, &shlyuz.SpeechRequest{Model: "gemini-2.5-flash-preview-tts", Input: "[fail-before] hi", Format: "wav"})
	adaptertest.AsError(t, err, 502, "upstream_error", true)
	_, err = p.Speak(ctx, &shlyuz.SpeechRequest{Model: "gemini-2.5-flash-preview-tts", Input: "[fail-after] hi", Format: "wav"})
	adaptertest.AsError(t, err, 502, "upstream_error", true)
}
