package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// yandexAudioTestModels are SpeechKit's models on the fake, routed to the
// yandex upstream under yaspeech/ (and to one whose breaker never trips
// under yaspeech-faulty/, for failures): speech v1 and v3 (100 credits a
// character at the test pricing) and recognition (100,000 credits a second,
// in 15-second blocks).
var yandexAudioTestModels = func() string {
	var b strings.Builder
	for _, id := range []string{"yaspeech/speechkit-tts", "yaspeech/speechkit-tts-v3", "yaspeech-faulty/speechkit-tts", "yaspeech-faulty/speechkit-tts-v3"} {
		fmt.Fprintf(&b, `  - {id: %q, name: %q, input_modalities: [text], output_modalities: [speech], speech: {voices: [alena, filipp], default_voice: alena, formats: [mp3, opus, wav, pcm], default_format: mp3, max_input_chars: 2000, unit: character, usd_per_mchars: "10"}}`+"\n", id, id)
	}
	b.WriteString(`  - {id: "yaspeech/speechkit-stt", name: "SpeechKit STT", input_modalities: [audio], output_modalities: [transcription], transcription: {formats: [wav, mp3, ogg], response_formats: [json, verbose_json, text, srt, vtt], max_bytes: 700000, max_seconds: 120, unit: second, usd_per_minute: "0.6", block_seconds: 15}}` + "\n")
	return b.String()
}()

// withYandexAudio adds SpeechKit's models, the upstream for its failures and
// their routes to the test configuration.
func withYandexAudio(root, cfg string) string {
	cfg = strings.Replace(cfg, "upstreams:\n", "upstreams:\n"+fmt.Sprintf("  - {name: yandex-faulty, protocol: yandex, base_url: %q, api_key_env: SHLYUZ_TEST_FAKE_KEY, folder_id: b1gfake, breaker: {consecutive_failures: 1000000}}\n", root), 1)
	cfg = strings.Replace(cfg, "routes:\n", "routes:\n  - {match: \"yaspeech/\", upstreams: [yandex], strip_prefix: true}\n  - {match: \"yaspeech-faulty/\", upstreams: [yandex-faulty], strip_prefix: true}\n", 1)
	return strings.Replace(cfg, "models:\n", "models:\n"+yandexAudioTestModels, 1)
}

func TestAudioYandexTranscription(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	mp3 := mediatest.MP3(2)
	mp3Secs, _ := media.AudioSeconds("mp3", mp3)
	stereo := append(media.WAVHeader(32000, 16000, 2), make([]byte, 32000)...)
	t.Run("base64 WAV through v1: its billed 15 s", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		var r transcriptionReply
		if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, map[string]any{"model": "yaspeech/speechkit-stt",
			"audio": b64Audio(mediatest.WAV(2.5, 16000), "wav"), "language": "ru"}, &r); st != 200 {
			t.Fatalf("status %d", st)
		}
		want := int64(15 * creditsPerSecond)
		if r.Text != fake.Transcript(2.5) || r.Usage.Credits != want || r.Usage.Seconds == nil || r.Usage.Seconds.String() != "15" {
			t.Fatalf("reply %+v, want 15 s and %d credits", r, want)
		}
		if after := balance(t, h.base, key).Data.TotalCredits; before-after != want {
			t.Fatalf("debited %d, want %d", before-after, want)
		}
	})
	t.Run("multipart MP3 through v3: the measured duration in a block, with segments", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		resp := postForm(t, key, map[string]string{"model": "yaspeech/speechkit-stt", "response_format": "verbose_json"}, "speech.mp3", mp3)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var r transcriptionReply
		if resp.StatusCode != 200 || json.Unmarshal(body, &r) != nil {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		want := int64(15 * creditsPerSecond)
		if r.Text != fake.Transcript(mp3Secs.Float64()) || len(r.Segments) == 0 || r.Usage.Credits != want {
			t.Fatalf("reply %s, want segments and %d credits", body, want)
		}
		if after := balance(t, h.base, key).Data.TotalCredits; before-after != want {
			t.Fatalf("debited %d, want %d", before-after, want)
		}
	})
	t.Run("41 s of WAV through v3: three blocks", func(t *testing.T) {
		var r transcriptionReply
		if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, map[string]any{"model": "yaspeech/speechkit-stt",
			"audio": b64Audio(mediatest.WAV(41, 8000), "wav")}, &r); st != 200 {
			t.Fatalf("status %d", st)
		}
		if want := int64(45 * creditsPerSecond); r.Text != fake.Transcript(41) || r.Usage.Credits != want {
			t.Fatalf("reply %+v, want %d credits", r, want)
		}
	})
	t.Run("stereo WAV refused, free", func(t *testing.T) {
		before := balance(t, h.base, key).Data
		var e struct{ Error shlyuz.Error }
		st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, map[string]any{"model": "yaspeech/speechkit-stt", "audio": b64Audio(stereo, "wav")}, &e)
		if st != 400 || e.Error.Code != "unsupported_format" || e.Error.Param == nil || !strings.Contains(e.Error.Message, "mono") {
			t.Fatalf("%d %+v", st, e.Error)
		}
		if after := balance(t, h.base, key).Data; after.TotalCredits != before.TotalCredits || after.Reserved != 0 {
			t.Fatalf("a refused transcription cost %d", before.TotalCredits-after.TotalCredits)
		}
	})
}

func TestAudioYandexSpeech(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	input := "Съешь же ещё этих мягких французских булок, да выпей чаю."
	want := fake.SpeechSeconds(input)
	credits := int64(len([]rune(input)) * creditsPerChar)
	for _, tc := range []struct{ model, format, mime, container string }{
		{"yaspeech/speechkit-tts", "mp3", "audio/mpeg", "mp3"},
		{"yaspeech/speechkit-tts", "wav", "audio/wav", "wav"},
		{"yaspeech/speechkit-tts", "pcm", "audio/pcm", ""},
		{"yaspeech/speechkit-tts-v3", "opus", "audio/ogg", "ogg"},
		{"yaspeech/speechkit-tts-v3", "wav", "audio/wav", "wav"},
	} {
		t.Run(tc.model+" "+tc.format, func(t *testing.T) {
			resp, body := postJSON(t, key, "/api/v1/audio/speech", map[string]any{"model": tc.model, "input": input, "voice": "filipp", "response_format": tc.format})
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.mime {
				t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			got := float64(len(body)) / 48000 // raw PCM: 24 kHz, 16-bit mono
			if tc.container != "" {
				secs, exact := media.AudioSeconds(tc.container, body)
				if media.SniffAudio(body) != tc.container || !exact {
					t.Fatalf("not measurable %s", tc.container)
				}
				got = secs.Float64()
			}
			if got < want-0.05 || got > want+0.05 {
				t.Fatalf("lasts %.3f s, want %.3f", got, want)
			}
			if g := generation(t, key, resp.Header.Get("X-Generation-Id")); g.Data.Credits != credits || g.Data.Status != "completed" {
				t.Fatalf("generation %+v, want %d credits", g.Data, credits)
			}
		})
	}
	t.Run("the OpenAI SDK, v3 mp3", func(t *testing.T) {
		client := sdkClient(key)
		resp, err := client.Audio.Speech.New(context.Background(), openai.AudioSpeechNewParams{Model: "yaspeech/speechkit-tts-v3", Input: input,
			Voice: openai.AudioSpeechNewParamsVoiceUnion{OfString: openai.String("alena")}, ResponseFormat: openai.AudioSpeechNewParamsResponseFormatMP3})
		if err != nil {
			t.Fatal(err)
		}
		audio, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if secs, exact := media.AudioSeconds("mp3", audio); err != nil || !exact || secs.Float64() < want || secs.Float64() > want+mediatest.MP3FrameSeconds {
			t.Fatalf("%v: %s s of MP3 (exact %v)", err, secs, exact)
		}
	})
}

func TestAudioYandexSpeechFailures(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	for _, model := range []string{"yaspeech-faulty/speechkit-tts", "yaspeech-faulty/speechkit-tts-v3"} {
		t.Run(model+" before any byte", func(t *testing.T) {
			resp, body := postJSON(t, key, "/api/v1/audio/speech", map[string]any{"model": model, "input": "[fail-before] x", "voice": "alena"})
			var e struct{ Error shlyuz.Error }
			if resp.StatusCode < 500 || json.Unmarshal(body, &e) != nil || e.Error.Code == "" {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
		})
		// [slow]: the failure comes 100 ms after the first chunk (see the report on a cut right after it).
		t.Run(model+" cut after the first chunk", func(t *testing.T) {
			resp, body, err := postJSONCut(t, key, "/api/v1/audio/speech", map[string]any{"model": model, "input": "[fail-after] [slow] " + strings.Repeat("обрыв ", 100), "voice": "alena"})
			if resp.StatusCode != 200 || err == nil || len(body) == 0 {
				t.Fatalf("%d, %d bytes, read error %v (the client must see it broken)", resp.StatusCode, len(body), err)
			}
			if g := generation(t, key, resp.Header.Get("X-Generation-Id")); g.Data.Status != "failed" || g.Data.Credits != 0 {
				t.Fatalf("generation %+v", g.Data)
			}
		})
	}
	if after := balance(t, h.base, key).Data; after.TotalCredits != before || after.Reserved != 0 {
		t.Fatalf("failures cost %d (reserved %d)", before-after.TotalCredits, after.Reserved)
	}
}

func TestAudioYandexSpeechClientLeaves(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	input := "[slow] " + strings.Repeat("длинная речь, которая идёт долго. ", 10) // ~20 s of audio, ~5 s at the slow pace
	conn, rd := rawSpeech(t, key, map[string]any{"model": "yaspeech/speechkit-tts-v3", "input": input, "voice": "alena"})
	resp, err := http.ReadResponse(rd, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	first := make([]byte, 1024)
	if _, err := io.ReadFull(resp.Body, first); err != nil || media.SniffAudio(first) != "mp3" {
		t.Fatalf("the first bytes: %v", err)
	}
	conn.Close()
	var g generationView
	waitFor(t, 5*time.Second, "the speech settled", func() bool {
		return call(t, h.base, "GET", "/api/v1/generation?id="+resp.Header.Get("X-Generation-Id"), key, nil, &g) == 200
	})
	if want := int64(len([]rune(input)) * creditsPerChar); g.Data.Credits != want || g.Data.Status != "cancelled" {
		t.Fatalf("generation %+v, want cancelled and %d credits", g.Data, want)
	}
	if after := balance(t, h.base, key).Data; before-after.TotalCredits != g.Data.Credits || after.Reserved != 0 {
		t.Fatalf("balance %+v, before %d", after, before)
	}
}
