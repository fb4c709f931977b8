package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// SaluteSpeech (protocol salute, the fake's /salute/) and Gemini audio (the
// test configuration's gemini upstream) through the gateway. The Salute
// models cost what the fake OpenAI ones do (creditsPerSecond, creditsPerChar);
// the Gemini ones are token-priced: $10 / $20 / $30 per million text-in /
// text-out / audio tokens, 100 / 200 / 300 credits a token.
const saluteAudioModels = `  - {id: "salute/salute-stt", name: "Salute STT", input_modalities: [audio], output_modalities: [transcription], transcription: {formats: [wav, ogg, mp3, flac], response_formats: [json, text], max_bytes: 2097152, max_seconds: 60, unit: second, usd_per_minute: "0.6"}}
  - {id: "salute/stt-fault-500", name: "Salute STT failing", input_modalities: [audio], output_modalities: [transcription], transcription: {formats: [wav, ogg, mp3, flac], response_formats: [json], max_bytes: 2097152, max_seconds: 60, unit: second, usd_per_minute: "0.6"}}
  - {id: "salute/salute-tts", name: "Salute TTS", input_modalities: [text], output_modalities: [speech], speech: {voices: [May_24000, Nec_24000], default_voice: May_24000, formats: [opus, wav, pcm], default_format: opus, max_input_chars: 4000, unit: character, usd_per_mchars: "10"}}
  - {id: "gemini/gemini-2.5-flash-stt", name: "Gemini STT", max_output_tokens: 100, input_modalities: [audio], output_modalities: [transcription], usd: {prompt_usd_per_mtok: "10", completion_usd_per_mtok: "20"}, transcription: {formats: [wav, mp3, ogg, flac], response_formats: [json, text], max_bytes: 300000, max_seconds: 60, unit: token, usd_per_m_audio_tokens: "30", audio_tokens_per_second: 32}}
  - {id: "gemini/gemini-2.5-flash-preview-tts", name: "Gemini TTS", input_modalities: [text], output_modalities: [speech], usd: {prompt_usd_per_mtok: "10", completion_usd_per_mtok: "0"}, speech: {voices: [Kore, Puck], default_voice: Kore, formats: [wav, pcm], default_format: wav, max_input_chars: 2000, unit: token, usd_per_m_audio_tokens: "30", audio_tokens_per_second: 32, max_seconds: 300}}
`

// withSaluteAudio adds the SaluteSpeech upstream, its route and the audio
// models above to the test configuration.
func withSaluteAudio(root, cfg string) string {
	cfg = strings.Replace(cfg, "upstreams:\n", "upstreams:\n"+fmt.Sprintf("  - {name: salute, protocol: salute, base_url: %q, auth_url: %q, api_key_env: SHLYUZ_TEST_FAKE_KEY}\n",
		root+"/salute/rest/v1", root+"/salute/api/v2/oauth"), 1)
	cfg = strings.Replace(cfg, "routes:\n", "routes:\n  - {match: \"salute/\", upstreams: [salute], strip_prefix: true}\n"+
		"  - {match: \"salute/stt-fault-500\", upstreams: [salute], upstream_model: fault-500}\n", 1)
	return strings.Replace(cfg, "models:\n", "models:\n"+saluteAudioModels, 1)
}

func TestAudioSaluteTranscription(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	wav, mp3, ogg := mediatest.WAV(1.5, 16000), mediatest.MP3(2), mediatest.OggOpus(4.5)
	for _, tc := range []struct {
		name    string
		body    map[string]any
		form    string // a multipart upload of this file name instead
		audio   []byte
		seconds int64 // billed
	}{
		{name: "wav as json", body: map[string]any{"audio": b64Audio(wav, "wav"), "language": "ru"}, audio: wav, seconds: 2},
		{name: "mp3 as input_audio", body: map[string]any{"input_audio": b64Audio(mp3, "mp3")}, audio: mp3, seconds: 3},
		{name: "ogg as multipart", form: "speech.ogg", audio: ogg, seconds: 5},
		{name: "wav as multipart", form: "speech.wav", audio: wav, seconds: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			var r transcriptionReply
			if tc.form != "" {
				resp := postForm(t, key, map[string]string{"model": "salute/salute-stt"}, tc.form, tc.audio)
				defer resp.Body.Close()
				if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != 200 {
					t.Fatalf("%d %v", resp.StatusCode, err)
				}
			} else {
				tc.body["model"] = "salute/salute-stt"
				if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, tc.body, &r); st != 200 {
					t.Fatalf("status %d", st)
				}
			}
			format := media.SniffAudio(tc.audio)
			secs, _ := media.AudioSeconds(format, tc.audio)
			if want := tc.seconds * creditsPerSecond; r.Text != fake.Transcript(secs.Float64()) || r.Usage.Credits != want {
				t.Fatalf("reply %+v, want %q and %d credits", r, fake.Transcript(secs.Float64()), want)
			}
			if after := balance(t, h.base, key).Data; before-after.TotalCredits != r.Usage.Credits || after.Reserved != 0 {
				t.Fatalf("debited %d, want %d (reserved %d)", before-after.TotalCredits, r.Usage.Credits, after.Reserved)
			}
		})
	}
	t.Run("refused or failed: free", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		stereo := append(media.WAVHeader(64000, 16000, 2), make([]byte, 64000)...)
		var e struct{ Error shlyuz.Error }
		if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, map[string]any{"model": "salute/salute-stt", "audio": b64Audio(stereo, "wav")}, &e); st != 400 ||
			e.Error.Code != "unsupported_format" || e.Error.Param == nil || !strings.Contains(e.Error.Message, "mono") {
			t.Fatalf("stereo WAV: %d %+v", st, e.Error)
		}
		if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, map[string]any{"model": "salute/stt-fault-500", "audio": b64Audio(wav, "wav")}, nil); st < 500 {
			t.Fatalf("a failing upstream: %d", st)
		}
		if after := balance(t, h.base, key).Data; after.TotalCredits != before || after.Reserved != 0 {
			t.Fatalf("charged %d (reserved %d)", before-after.TotalCredits, after.Reserved)
		}
	})
}

func TestAudioSaluteSpeech(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	input := "Добрый день! Это проверка синтеза речи через шлюз."
	chars := int64(len([]rune(input)))
	pcm := fake.Speech(input, "pcm")
	for _, tc := range []struct{ format, mime, container string }{
		{"opus", "audio/ogg", "ogg"}, {"wav", "audio/wav", "wav"}, {"pcm", "audio/pcm", ""},
	} {
		t.Run(tc.format, func(t *testing.T) {
			resp, body := postJSON(t, key, "/api/v1/audio/speech", map[string]any{"model": "salute/salute-tts", "input": input, "voice": "Nec_24000", "response_format": tc.format})
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.mime || resp.Header.Get("X-Generation-Id") == "" {
				t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			want := float64(len(pcm)) / 48000
			got := float64(len(body)) / 48000
			if tc.container != "" {
				secs, exact := media.AudioSeconds(tc.container, body)
				if media.SniffAudio(body) != tc.container || !exact {
					t.Fatalf("the audio is not a measurable %s", tc.container)
				}
				got = secs.Float64()
			}
			if got < want-0.001 || got > want+0.05 {
				t.Fatalf("%s lasts %.3f s, want %.3f", tc.format, got, want)
			}
			if g := generation(t, key, resp.Header.Get("X-Generation-Id")); g.Data.Credits != chars*creditsPerChar || g.Data.Status != "completed" {
				t.Fatalf("generation %+v, want %d credits", g.Data, chars*creditsPerChar)
			}
		})
	}
	t.Run("failed before or after the first byte: free", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		resp, body := postJSON(t, key, "/api/v1/audio/speech", map[string]any{"model": "salute/salute-tts", "input": "[fail-before] " + input})
		var e struct{ Error shlyuz.Error }
		if resp.StatusCode < 500 || json.Unmarshal(body, &e) != nil || e.Error.Code == "" {
			t.Fatalf("a failure before any byte: %d %s", resp.StatusCode, body)
		}
		resp, got, err := postJSONCut(t, key, "/api/v1/audio/speech", map[string]any{"model": "salute/salute-tts", "input": "[fail-after] " + strings.Repeat(input, 3), "response_format": "wav"})
		if resp.StatusCode != 200 || err == nil || len(got) == 0 {
			t.Fatalf("a cut speech: %d, %d bytes, read error %v", resp.StatusCode, len(got), err)
		}
		if g := generation(t, key, resp.Header.Get("X-Generation-Id")); g.Data.Status != "failed" || g.Data.Credits != 0 {
			t.Fatalf("a cut speech: %+v", g.Data)
		}
		if after := balance(t, h.base, key).Data; after.TotalCredits != before || after.Reserved != 0 {
			t.Fatalf("failures cost %d (reserved %d)", before-after.TotalCredits, after.Reserved)
		}
	})
	t.Run("the client leaves after the first chunk: billed in full, the upstream stopped", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		long := strings.Repeat("Длинная речь. ", 280) // 3920 characters: 235 s of audio, 470 chunks 10 ms apart
		conn, rd := rawSpeech(t, key, map[string]any{"model": "salute/salute-tts", "input": long, "response_format": "wav"})
		resp, err := http.ReadResponse(rd, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		first := make([]byte, 2048)
		if _, err := io.ReadFull(resp.Body, first); err != nil || media.SniffAudio(first) != "wav" {
			t.Fatalf("the first bytes: %v", err)
		}
		conn.Close()
		id := resp.Header.Get("X-Generation-Id")
		var g generationView
		waitFor(t, 5*time.Second, "the speech settled", func() bool {
			return call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g) == 200
		})
		if want := int64(len([]rune(long))) * creditsPerChar; g.Data.Credits != want || g.Data.Status != "cancelled" {
			t.Fatalf("generation %+v, want cancelled and %d credits", g.Data, want)
		}
		waitFor(t, 3*time.Second, "the upstream stopped", func() bool { return h.fake.InFlight() == 0 })
		if after := balance(t, h.base, key).Data; before-after.TotalCredits != g.Data.Credits || after.Reserved != 0 {
			t.Fatalf("balance %+v, before %d", after, before)
		}
	})
}

func TestAudioGemini(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	t.Run("transcription: the tokens Gemini counted", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		audio := mediatest.MP3(3)
		var r transcriptionReply
		if st := call(t, h.base, "POST", "/api/v1/audio/transcriptions", key, map[string]any{"model": "gemini/gemini-2.5-flash-stt",
			"audio": b64Audio(audio, "mp3"), "language": "en", "prompt": "Names: Shlyuz."}, &r); st != 200 {
			t.Fatalf("status %d", st)
		}
		secs, _ := media.AudioSeconds("mp3", audio)
		text := r.Usage.InputTokens - r.Usage.AudioTokens
		want := text*100 + r.Usage.OutputTokens*200 + r.Usage.AudioTokens*300
		if r.Text != fake.Transcript(secs.Float64()) || r.Usage.Type != "tokens" || text < 1 ||
			r.Usage.AudioTokens != int64(math.Ceil(secs.Float64()*fake.GeminiAudioTokensPerSecond)) ||
			r.Usage.OutputTokens != int64(len(r.Text)/4) || r.Usage.Credits != want {
			t.Fatalf("reply %+v, want %d credits", r, want)
		}
		if after := balance(t, h.base, key).Data; before-after.TotalCredits != want || after.Reserved != 0 {
			t.Fatalf("debited %d, want %d", before-after.TotalCredits, want)
		}
	})
	input := "Hello from Gemini, spoken through the gateway."
	pcm := fake.Speech(input, "pcm")
	// The fake counts the text at a token per four characters and the audio at 32 tokens a second.
	wantCredits := int64(len(input)/4)*100 + int64(math.Ceil(float64(len(pcm))/48000*fake.GeminiAudioTokensPerSecond))*300
	for _, tc := range []struct{ format, mime string }{{"wav", "audio/wav"}, {"pcm", "audio/pcm"}} {
		t.Run("speech "+tc.format, func(t *testing.T) {
			resp, body := postJSON(t, key, "/api/v1/audio/speech", map[string]any{"model": "gemini/gemini-2.5-flash-preview-tts", "input": input, "voice": "Puck", "response_format": tc.format})
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.mime {
				t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			switch tc.format {
			case "wav":
				w, ok := media.ParseWAV(body)
				if secs, exact := media.AudioSeconds("wav", body); !ok || w.Rate != 24000 || w.Channels != 1 || !exact || secs.Float64() != float64(len(pcm))/48000 {
					t.Fatalf("WAV %v %+v lasts %s", ok, w.Rate, secs)
				}
			case "pcm":
				if string(body) != string(pcm) {
					t.Fatalf("PCM of %d bytes, want %d", len(body), len(pcm))
				}
			}
			if g := generation(t, key, resp.Header.Get("X-Generation-Id")); g.Data.Credits != wantCredits || g.Data.Status != "completed" {
				t.Fatalf("generation %+v, want %d credits", g.Data, wantCredits)
			}
		})
	}
	t.Run("speech failed: free", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		resp, body := postJSON(t, key, "/api/v1/audio/speech", map[string]any{"model": "gemini/gemini-2.5-flash-preview-tts", "input": "[fail-before] hi"})
		if resp.StatusCode < 500 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		if after := balance(t, h.base, key).Data; after.TotalCredits != before || after.Reserved != 0 {
			t.Fatalf("charged %d", before-after.TotalCredits)
		}
	})
}
