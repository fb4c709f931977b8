package yandex_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
	"github.com/shlyuz/shlyuz/providers/yandex"
)

// audioFake is the fake on loopback, with the calls it received and, for
// each speech call, whether its client had gone when the fake stopped.
type audioFake struct {
	*upstream
	mu    sync.Mutex
	calls []string
	ended chan error // r.Context().Err() when a speech handler returned
}

func startAudioFake(t *testing.T) *audioFake {
	t.Helper()
	f := &audioFake{ended: make(chan error, 64)}
	f.upstream = &upstream{adaptertest.StartFake(t, fake.Options{APIKey: apiKey}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			f.calls = append(f.calls, r.Method+" "+r.URL.Path)
			f.mu.Unlock()
			if strings.Contains(r.URL.Path, "tts") || strings.Contains(r.URL.Path, "utteranceSynthesis") {
				// deferred: the fake drops the connection of a client gone (a panic through here)
				defer func() { f.ended <- r.Context().Err() }()
			}
			h.ServeHTTP(w, r)
		})
	})}
	return f
}

func (f *audioFake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func TestTranscribe(t *testing.T) {
	f := startAudioFake(t)
	p := f.provider(t, nil)
	mp3 := mediatest.MP3(2)
	mp3Secs, _ := media.AudioSeconds("mp3", mp3)
	oggSecs, _ := media.AudioSeconds("ogg", mediatest.OggOpus(3))
	for _, tc := range []struct {
		name, format string
		audio        []byte
		seconds      float64
		billed       int64 // v1's billed seconds; 0: v3, none reported
		calls        []string
	}{
		{"wav via v1", "wav", mediatest.WAV(2, 16000), 2, 15, []string{"POST /speech/v1/stt:recognize"}},
		{"wav of 16 s via v1", "wav", mediatest.WAV(16, 8000), 16, 30, []string{"POST /speech/v1/stt:recognize"}},
		{"ogg opus via v1", "ogg", mediatest.OggOpus(3), oggSecs.Float64(), 15, []string{"POST /speech/v1/stt:recognize"}},
		{"mp3 via v3", "mp3", mp3, mp3Secs.Float64(), 0,
			[]string{"POST /stt/v3/recognizeFileAsync", "GET /operations/", "GET /operations/", "GET /stt/v3/getRecognition"}},
		{"wav of 41 s via v3", "wav", mediatest.WAV(41, 16000), 41, 0,
			[]string{"POST /stt/v3/recognizeFileAsync", "GET /operations/", "GET /operations/", "GET /stt/v3/getRecognition"}},
		{"wav at 24 kHz via v3", "wav", mediatest.WAV(1, 24000), 1, 0,
			[]string{"POST /stt/v3/recognizeFileAsync", "GET /operations/", "GET /operations/", "GET /stt/v3/getRecognition"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.Calls())
			tr, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Model: "speechkit-stt", Audio: tc.audio, Format: tc.format})
			if err != nil {
				t.Fatal(err)
			}
			if want := fake.Transcript(tc.seconds); tr.Text != want {
				t.Errorf("text %q, want %q", tr.Text, want)
			}
			if tr.Language != "ru-RU" {
				t.Errorf("language %q", tr.Language)
			}
			switch {
			case tc.billed > 0 && (tr.Usage == nil || tr.Usage.Seconds == nil || tr.Usage.Seconds.String() != shlyuz.NewDecimalFrac(tc.billed, 1).String()):
				t.Errorf("usage %+v, want %d billed seconds", tr.Usage, tc.billed)
			case tc.billed == 0 && tr.Usage != nil:
				t.Errorf("usage %+v, want none", tr.Usage)
			case tc.billed == 0 && (len(tr.Segments) == 0 || tr.Segments[0].Start != 0 || tr.Duration < tc.seconds-0.01):
				t.Errorf("segments %+v, duration %g", tr.Segments, tr.Duration)
			}
			calls := f.Calls()[before:]
			if len(calls) != len(tc.calls) {
				t.Fatalf("calls %q, want %q", calls, tc.calls)
			}
			for i, c := range calls {
				if !strings.HasPrefix(c, tc.calls[i]) {
					t.Errorf("call %d: %q, want %q…", i, c, tc.calls[i])
				}
			}
		})
	}
}

func TestTranscribeRefusals(t *testing.T) {
	f := startAudioFake(t)
	stereo := append(media.WAVHeader(64000, 16000, 2), make([]byte, 64000)...)
	for _, tc := range []struct {
		name, format, fault string
		audio               []byte
		status              int
		code                string
		upstreamFault       bool
		want                string
	}{
		{name: "stereo wav", format: "wav", audio: stereo, status: 400, code: "unsupported_format", want: "2 channels"},
		{name: "flac", format: "flac", audio: []byte("fLaC\x00\x00\x00\x22"), status: 400, code: "unsupported_format", want: "MP3"},
		{name: "v1 500", format: "wav", fault: "500", audio: mediatest.WAV(1, 16000), status: 502, code: "upstream_error", upstreamFault: true},
		{name: "v1 429", format: "wav", fault: "429", audio: mediatest.WAV(1, 16000), status: 429, code: "rate_limited", upstreamFault: true},
		{name: "v3 failed", format: "mp3", fault: "failed", audio: mediatest.MP3(1), status: 502, code: "upstream_error", upstreamFault: true, want: "failed the recognition"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := f.provider(t, func(c *shlyuz.UpstreamConfig) { c.Headers = map[string]string{fake.FaultHeader: tc.fault} })
			before := len(f.Calls())
			_, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Model: "speechkit-stt", Audio: tc.audio, Format: tc.format})
			e := adaptertest.AsError(t, err, tc.status, tc.code, tc.upstreamFault)
			if !strings.Contains(e.Message, tc.want) {
				t.Errorf("message %q, want it to say %q", e.Message, tc.want)
			}
			if tc.code == "unsupported_format" && len(f.Calls()) != before {
				t.Errorf("refused audio reached the upstream: %q", f.Calls()[before:])
			}
		})
	}
}

// readSpeech reads a speech to its end: the audio, how many reads gave bytes, and the error that ended it.
func readSpeech(a shlyuz.SpeechAudio) ([]byte, int, error) {
	var out bytes.Buffer
	buf := make([]byte, 32<<10)
	reads := 0
	for {
		n, err := a.Read(buf)
		if n > 0 {
			reads++
			out.Write(buf[:n])
		}
		if err == io.EOF {
			return out.Bytes(), reads, nil
		}
		if err != nil {
			return out.Bytes(), reads, err
		}
	}
}

func TestSpeak(t *testing.T) {
	f := startAudioFake(t)
	p := f.provider(t, nil)
	text := "Съешь же ещё этих мягких французских булок, да выпей чаю."
	secs := fake.SpeechSeconds(text)
	pcm48, pcm24 := mediatest.PCM(secs, 48000), mediatest.PCM(secs, 24000)
	for _, tc := range []struct {
		model, format string
		check         func(t *testing.T, b []byte)
	}{
		{"speechkit-tts", "mp3", func(t *testing.T, b []byte) {
			checkSeconds(t, "mp3", b, secs, mediatest.MP3FrameSeconds)
			if !bytes.Equal(b, mediatest.MP3(secs)) {
				t.Error("not the fake's MP3 frames")
			}
		}},
		{"speechkit-tts", "opus", func(t *testing.T, b []byte) { checkSeconds(t, "ogg", b, secs, 0.03) }},
		{"speechkit-tts", "wav", func(t *testing.T, b []byte) {
			w := checkWAV(t, b, 48000)
			if len(w.Data) != len(pcm48) {
				t.Errorf("%d bytes of samples, want %d", len(w.Data), len(pcm48))
			}
		}},
		{"speechkit-tts", "pcm", func(t *testing.T, b []byte) {
			if len(b) != len(pcm48)/4*2 {
				t.Errorf("%d bytes of 24 kHz PCM, want %d", len(b), len(pcm48)/4*2)
			}
		}},
		{"speechkit-tts-v3", "mp3", func(t *testing.T, b []byte) { checkSeconds(t, "mp3", b, secs, mediatest.MP3FrameSeconds) }},
		{"speechkit-tts-v3", "opus", func(t *testing.T, b []byte) { checkSeconds(t, "ogg", b, secs, 0.03) }},
		{"speechkit-tts-v3", "wav", func(t *testing.T, b []byte) {
			if !bytes.Equal(checkWAV(t, b, 22050).Data, mediatest.PCM(secs, 22050)) {
				t.Error("not the fake's samples")
			}
		}},
		{"speechkit-tts-v3", "pcm", func(t *testing.T, b []byte) {
			if !bytes.Equal(b, pcm24) {
				t.Errorf("%d bytes of PCM, want the fake's %d at 24 kHz", len(b), len(pcm24))
			}
		}},
	} {
		t.Run(tc.model+" "+tc.format, func(t *testing.T) {
			a, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: tc.model, Input: text, Voice: "alena", Format: tc.format})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, reads, err := readSpeech(a)
			if err != nil {
				t.Fatal(err)
			}
			if reads < 2 && len(b) > 4096 {
				t.Errorf("the audio came in %d reads; want it streamed in chunks", reads)
			}
			if a.Usage() != nil {
				t.Errorf("usage %+v, want nil", a.Usage())
			}
			tc.check(t, b)
		})
	}
}

func checkSeconds(t *testing.T, format string, b []byte, want, tolerance float64) {
	t.Helper()
	got, exact := media.AudioSeconds(format, b)
	if g := got.Float64(); !exact || g < want || g > want+tolerance {
		t.Errorf("%s lasts %g s (exact %v), want %g s", format, g, exact, want)
	}
}

func checkWAV(t *testing.T, b []byte, rate int) media.WAVInfo {
	t.Helper()
	w, ok := media.ParseWAV(b)
	if !ok || w.Rate != rate || w.Channels != 1 || w.Bits != 16 {
		t.Fatalf("not a 16-bit mono WAV at %d Hz: %+v %v", rate, w.Rate, ok)
	}
	return w
}

func TestSpeakFaults(t *testing.T) {
	f := startAudioFake(t)
	p := f.provider(t, nil)
	for _, model := range []string{"speechkit-tts", "speechkit-tts-v3"} {
		t.Run(model+" fail before", func(t *testing.T) {
			_, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: model, Input: "[fail-before] привет", Voice: "alena", Format: "mp3"})
			adaptertest.AsError(t, err, 502, "upstream_error", true)
		})
		t.Run(model+" fail after", func(t *testing.T) {
			a, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: model, Input: "[fail-after] " + strings.Repeat("долгий текст ", 40), Voice: "alena", Format: "mp3"})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, _, err := readSpeech(a)
			if len(b) == 0 {
				t.Error("no audio before the failure")
			}
			adaptertest.AsError(t, err, 502, "upstream_error", true)
		})
		t.Run(model+" unknown voice", func(t *testing.T) {
			_, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: model, Input: "привет", Voice: "nobody", Format: "mp3"})
			adaptertest.AsError(t, err, 400, "invalid_value", false)
		})
	}
	t.Run("speed out of range", func(t *testing.T) {
		before := len(f.Calls())
		speed := 4.0
		_, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: "speechkit-tts", Input: "x", Format: "mp3", Speed: &speed})
		if e := adaptertest.AsError(t, err, 400, "invalid_value", false); e.Param == nil || *e.Param != "speed" {
			t.Errorf("param %v, want speed", e.Param)
		}
		if len(f.Calls()) != before {
			t.Error("the request reached the upstream")
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		p := f.provider(t, func(c *shlyuz.UpstreamConfig) { c.APIKey = "AQVN-wrong-key-0000000" })
		_, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: "speechkit-tts", Input: "x", Format: "mp3"})
		e := adaptertest.AsError(t, err, 502, "upstream_error", true)
		adaptertest.NotLeaked(t, e, "AQVN", "wrong-key")
	})
}

// TestSpeakCloseStopsUpstream: Close after the first chunk of slow speech
// ends the upstream call at once, and Read then fails as closed.
func TestSpeakCloseStopsUpstream(t *testing.T) {
	f := startAudioFake(t)
	p := f.provider(t, nil)
	text := "[slow] " + strings.Repeat("очень длинный текст ", 20) // ~24 s of MP3: ~60 chunks, 6 s at the slow pace
	for _, model := range []string{"speechkit-tts", "speechkit-tts-v3"} {
		t.Run(model, func(t *testing.T) {
			a, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: model, Input: text, Voice: "alena", Format: "mp3"})
			if err != nil {
				t.Fatal(err)
			}
			if n, err := a.Read(make([]byte, 1024)); n == 0 || err != nil {
				t.Fatalf("first read: %d, %v", n, err)
			}
			start := time.Now()
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-f.ended:
				if err == nil {
					t.Error("the fake finished the speech; want its client gone")
				}
			case <-time.After(3 * time.Second):
				t.Fatal("the upstream call went on after Close")
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("the upstream call ended %v after Close", d)
			}
			if _, _, err := readSpeech(a); !errors.Is(err, yandex.ErrStreamClosed) {
				t.Errorf("read after Close: %v, want the closed error", err)
			}
		})
	}
}

// TestFakeSpeechKitRefusals pins down what the fake refuses: audio that is
// not what the request declares, and bodies the real API would reject.
func TestFakeSpeechKitRefusals(t *testing.T) {
	f := startAudioFake(t)
	auth := map[string]string{"Authorization": "Api-Key " + apiKey}
	long := strings.Repeat("a", 251)
	for _, tc := range []struct {
		name, path, body, contentType string
		status                        int
		want                          string
	}{
		{"v1 lpcm with a WAV header", "/speech/v1/stt:recognize?format=lpcm&sampleRateHertz=16000", string(mediatest.WAV(1, 16000)), "application/octet-stream", 400, "BAD_REQUEST"},
		{"v1 lpcm at 24 kHz", "/speech/v1/stt:recognize?format=lpcm&sampleRateHertz=24000", string(mediatest.PCM(1, 24000)), "application/octet-stream", 400, "sampleRateHertz"},
		{"v1 oggopus that is MP3", "/speech/v1/stt:recognize?format=oggopus", string(mediatest.MP3(1)), "application/octet-stream", 400, "not Ogg Opus"},
		{"v1 over 30 s", "/speech/v1/stt:recognize?format=lpcm&sampleRateHertz=8000", string(mediatest.PCM(31, 8000)), "application/octet-stream", 400, "30s"},
		{"v3 WAV that is MP3", "/stt/v3/recognizeFileAsync", `{"content":"` + base64.StdEncoding.EncodeToString(mediatest.MP3(1)) + `","recognitionModel":{"audioFormat":{"containerAudio":{"containerAudioType":"WAV"}}}}`, "application/json", 400, "declared"},
		{"v3 hint of two keys", "/tts/v3/utteranceSynthesis", `{"text":"x","hints":[{"voice":"alena","speed":1}],"outputAudioSpec":{"containerAudio":{"containerAudioType":"MP3"}}}`, "application/json", 400, "one field"},
		{"v3 251 characters, safe mode", "/tts/v3/utteranceSynthesis", `{"text":"` + long + `","outputAudioSpec":{"containerAudio":{"containerAudioType":"MP3"}}}`, "application/json", 400, "Too long"},
		{"v1 tts without text", "/speech/v1/tts:synthesize", "voice=alena", "application/x-www-form-urlencoded", 400, "text is required"},
		{"v1 tts over 5000 characters", "/speech/v1/tts:synthesize", "text=" + strings.Repeat("a", 5001), "application/x-www-form-urlencoded", 400, "Too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := adaptertest.Post(t, f.TS.URL+tc.path, tc.body, map[string]string{"Content-Type": tc.contentType}, auth)
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(raw), tc.want) {
				t.Errorf("HTTP %d %s; want %d saying %q", resp.StatusCode, raw, tc.status, tc.want)
			}
		})
	}
}
