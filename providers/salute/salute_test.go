package salute

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

const testKey = "c2FsdXRlOnNlY3JldA==" // base64 of client_id:client_secret

// open starts a fake SaluteSpeech and the adapter for it; change, when set,
// edits the configuration first.
func open(t *testing.T, change func(*shlyuz.UpstreamConfig)) (*Provider, *adaptertest.Upstream) {
	t.Helper()
	return openWrapped(t, nil, change)
}

// openWrapped is open with wrap in front of the fake (adaptertest.StartFake).
func openWrapped(t *testing.T, wrap func(http.Handler) http.Handler, change func(*shlyuz.UpstreamConfig)) (*Provider, *adaptertest.Upstream) {
	t.Helper()
	u := adaptertest.StartFake(t, fake.Options{APIKey: testKey}, wrap)
	cfg := shlyuz.UpstreamConfig{Name: "salute-test", Protocol: "salute", APIKey: testKey,
		BaseURL: u.TS.URL + "/salute/rest/v1", AuthURL: u.TS.URL + "/salute/api/v2/oauth"}
	if change != nil {
		change(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p, u
}

// stereoWAV is seconds of 16-bit stereo silence at rate.
func stereoWAV(seconds float64, rate int) []byte {
	n := int(seconds*float64(rate)) * 4
	return append(media.WAVHeader(n, rate, 2), make([]byte, n)...)
}

func TestTranscribe(t *testing.T) {
	wav := mediatest.WAV(1.5, 16000)
	mp3 := mediatest.MP3(2)
	ogg := mediatest.OggOpus(1)
	cases := []struct {
		name, format string
		audio        []byte
		language     string
		wantType     string // the Content-Type sent
		wantBody     []byte // the body sent
		wantQuery    string
		wantSecs     float64 // the fake's transcript's duration
		wantErr      string  // the error code, when refused before any call
		wantParam    string
	}{
		{name: "wav stripped to pcm", format: "wav", audio: wav, wantType: "audio/x-pcm;bit=16;rate=16000",
			wantBody: wav[44:], wantQuery: "language=ru-RU", wantSecs: 1.5},
		{name: "mp3 passes through", format: "mp3", audio: mp3, language: "en", wantType: "audio/mpeg",
			wantBody: mp3, wantQuery: "language=en-US", wantSecs: 77 * mediatest.MP3FrameSeconds},
		{name: "ogg opus", format: "ogg", audio: ogg, language: "kk", wantType: "audio/ogg;codecs=opus",
			wantBody: ogg, wantQuery: "language=kk-KZ"},
		{name: "stereo refused", format: "wav", audio: stereoWAV(1, 16000), wantErr: "unsupported_format", wantParam: "file"},
		{name: "webm refused", format: "webm", audio: []byte{0x1A, 0x45, 0xDF, 0xA3, 0, 0}, wantErr: "unsupported_format", wantParam: "file"},
		{name: "m4a refused", format: "m4a", audio: []byte("\x00\x00\x00\x20ftypM4A "), wantErr: "unsupported_format", wantParam: "file"},
		{name: "ogg vorbis refused", format: "ogg", audio: []byte("OggS\x00\x02\x00\x00\x01vorbis"), wantErr: "unsupported_format", wantParam: "file"},
		{name: "over a minute", format: "wav", audio: mediatest.WAV(61, 8000), wantErr: "invalid_value", wantParam: "file"},
		{name: "over 2 MB", format: "wav", audio: mediatest.WAV(70, 16000), wantErr: "invalid_value", wantParam: "file"},
		{name: "unknown language", format: "mp3", audio: mp3, language: "klingon", wantErr: "invalid_value", wantParam: "language"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, u := open(t, nil)
			secs, _ := media.AudioSeconds(c.format, c.audio)
			tr, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Model: "salute-stt",
				Audio: c.audio, Format: c.format, Language: c.language, Seconds: secs})
			if c.wantErr != "" {
				e := adaptertest.AsError(t, err, 400, c.wantErr, false)
				if e.Param == nil || *e.Param != c.wantParam {
					t.Errorf("param %v, want %q", e.Param, c.wantParam)
				}
				if c.wantErr == "unsupported_format" && !strings.Contains(e.Message, "ogg (Opus), mp3 and flac") {
					t.Errorf("the refusal does not name the accepted formats: %s", e.Message)
				}
				if u.Fake.Requests() != 0 {
					t.Errorf("%d requests reached the upstream", u.Fake.Requests())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			h := u.Fake.LastHeader()
			if got := h.Get("Content-Type"); got != c.wantType {
				t.Errorf("Content-Type %q, want %q", got, c.wantType)
			}
			if !bytes.Equal(u.Fake.LastRequest(), c.wantBody) {
				t.Errorf("body of %d bytes, want %d", len(u.Fake.LastRequest()), len(c.wantBody))
			}
			if !strings.HasPrefix(h.Get("Authorization"), "Bearer fake-salute-") {
				t.Errorf("Authorization %q", h.Get("Authorization"))
			}
			want := c.wantSecs
			if want == 0 {
				f, _ := media.AudioSeconds("ogg", c.audio)
				want = f.Float64()
			}
			if tr.Text != fake.Transcript(want) || tr.Usage != nil {
				t.Errorf("transcript %q usage %+v, want %q and none", tr.Text, tr.Usage, fake.Transcript(want))
			}
		})
	}
}

// TestTokenFetchedOnce: one token serves every call.
func TestTokenFetchedOnce(t *testing.T) {
	p, u := open(t, nil)
	for range 3 {
		if _, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Audio: mediatest.MP3(1), Format: "mp3"}); err != nil {
			t.Fatal(err)
		}
	}
	a, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Input: "Привет", Format: "opus"})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, a)
	a.Close()
	if n := u.Fake.SaluteTokensIssued(); n != 1 {
		t.Errorf("tokens issued %d, want 1", n)
	}
	if n := u.Fake.GigaChatTokensIssued(); n != 0 {
		t.Errorf("GigaChat tokens issued %d", n)
	}
}

// TestScope: the scope asked for is the configured one, SALUTE_SPEECH_PERS by
// default; a scope the fake does not grant is the operator's to fix.
func TestScope(t *testing.T) {
	p, _ := open(t, func(c *shlyuz.UpstreamConfig) { c.Scope = "SALUTE_SPEECH_CORP" })
	if _, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Audio: mediatest.MP3(1), Format: "mp3"}); err != nil {
		t.Fatal(err)
	}
	p, _ = open(t, func(c *shlyuz.UpstreamConfig) { c.Scope = "GIGACHAT_API_PERS" })
	_, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Audio: mediatest.MP3(1), Format: "mp3"})
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "SaluteSpeech") || strings.Contains(e.Message, testKey) {
		t.Errorf("message %q", e.Message)
	}
}

func TestSpeak(t *testing.T) {
	const input = "Добрый день, это проверка синтеза."
	pcm := len(fake.Speech(input, "pcm"))
	secs := float64(pcm) / 48000
	for _, c := range []struct {
		format string
		check  func(t *testing.T, b []byte)
	}{
		{"opus", func(t *testing.T, b []byte) {
			d, exact := media.AudioSeconds("ogg", b)
			got := d.Float64()
			if !exact || media.SniffAudio(b) != "ogg" || !bytes.Contains(b, []byte("OpusHead")) || got < secs || got > secs+0.05 {
				t.Errorf("Ogg Opus of %v s (exact %v), want %v", got, exact, secs)
			}
			checkOggPages(t, b)
		}},
		{"wav", func(t *testing.T, b []byte) {
			w, ok := media.ParseWAV(b)
			if !ok || w.Rate != 24000 || w.Channels != 1 || w.Bits != 16 || len(w.Data) != pcm {
				t.Errorf("WAV %+v ok=%v, %d bytes of data", w.Rate, ok, len(w.Data))
			}
		}},
		{"pcm", func(t *testing.T, b []byte) {
			if len(b) != pcm || media.SniffAudio(b) != "" {
				t.Errorf("PCM of %d bytes, want %d", len(b), pcm)
			}
		}},
	} {
		t.Run(c.format, func(t *testing.T) {
			p, u := open(t, nil)
			a, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Model: "salute-tts", Input: input, Voice: "Nec_24000", Format: c.format})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := io.ReadAll(a)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, b)
			if a.Usage() != nil {
				t.Errorf("usage %+v", a.Usage())
			}
			h := u.Fake.LastHeader()
			if h.Get("Content-Type") != "application/text" || string(u.Fake.LastRequest()) != input {
				t.Errorf("sent %q as %q", u.Fake.LastRequest(), h.Get("Content-Type"))
			}
		})
	}
}

// checkOggPages walks the pages: each starts with OggS, the first holds
// OpusHead, the last ends the stream, and their sizes add up.
func checkOggPages(t *testing.T, b []byte) {
	t.Helper()
	off, pages, last := 0, 0, byte(0)
	for off+27 <= len(b) {
		if string(b[off:off+4]) != "OggS" {
			t.Fatalf("page %d at %d: no OggS", pages, off)
		}
		segs := int(b[off+26])
		size := 27 + segs
		for _, s := range b[off+27 : off+27+segs] {
			size += int(s)
		}
		if pages == 0 && string(b[off+27+segs:off+27+segs+8]) != "OpusHead" {
			t.Error("the first page is not OpusHead")
		}
		last = b[off+5]
		off += size
		pages++
	}
	if off != len(b) || last&4 == 0 || pages < 3 {
		t.Errorf("pages %d, %d of %d bytes walked, last flags %x", pages, off, len(b), last)
	}
}

func TestSpeakRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		req   shlyuz.SpeechRequest
		code  string
		param string
	}{
		{"mp3", shlyuz.SpeechRequest{Input: "hi", Format: "mp3"}, "unsupported_format", "response_format"},
		{"voice", shlyuz.SpeechRequest{Input: "hi", Format: "opus", Voice: "alloy"}, "invalid_value", "voice"},
		{"empty", shlyuz.SpeechRequest{Format: "opus"}, "missing_field", "input"},
		{"long", shlyuz.SpeechRequest{Input: strings.Repeat("я", MaxInput+1), Format: "opus"}, "invalid_value", "input"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, u := open(t, nil)
			_, err := p.Speak(context.Background(), &c.req)
			e := adaptertest.AsError(t, err, 400, c.code, false)
			if e.Param == nil || *e.Param != c.param {
				t.Errorf("param %v", e.Param)
			}
			if u.Fake.Requests() != 0 {
				t.Error("the upstream was called")
			}
		})
	}
}

// TestFaults: a failure before any byte is an error of Speak or Transcribe;
// a cut after the first chunk is an error of Read after some audio.
func TestFaults(t *testing.T) {
	p, _ := open(t, nil)
	ctx := context.Background()
	_, err := p.Speak(ctx, &shlyuz.SpeechRequest{Input: "[fail-before] hello", Format: "wav"})
	adaptertest.AsError(t, err, 502, "upstream_error", true)

	a, err := p.Speak(ctx, &shlyuz.SpeechRequest{Input: "[fail-after] " + strings.Repeat("hello ", 20), Format: "wav"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(a)
	a.Close()
	if len(b) == 0 {
		t.Error("no audio before the cut")
	}
	adaptertest.AsError(t, err, 502, "upstream_error", true)

	for _, c := range []struct {
		fault  string
		status int
		code   string
	}{{"429", 429, "rate_limited"}, {"503", 502, "upstream_error"}, {"402", 502, "upstream_error"}, {"400", 400, "invalid_value"}} {
		p, _ := open(t, func(cfg *shlyuz.UpstreamConfig) { cfg.Headers = map[string]string{fake.FaultHeader: c.fault} })
		_, err := p.Transcribe(ctx, &shlyuz.TranscriptionRequest{Audio: mediatest.MP3(1), Format: "mp3"})
		adaptertest.AsError(t, err, c.status, c.code, c.status != 400)
	}

	slow, _ := open(t, func(cfg *shlyuz.UpstreamConfig) { cfg.FirstByteTimeout = 200 * time.Millisecond })
	_, err = slow.Speak(ctx, &shlyuz.SpeechRequest{Input: "[slow] hello", Format: "opus"})
	adaptertest.AsError(t, err, 504, "upstream_timeout", true)
}

// TestCloseStops: Close after the first chunk ends the upstream's call, and
// Read then fails with ErrClosed.
func TestCloseStops(t *testing.T) {
	ended := make(chan struct{}, 1) // the synthesis handler returned
	p, _ := openWrapped(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "text:synthesize") {
				// deferred: the fake drops the connection of a client gone (a panic through here)
				defer func() { ended <- struct{}{} }()
			}
			h.ServeHTTP(w, r)
		})
	}, nil)
	a, err := p.Speak(context.Background(), &shlyuz.SpeechRequest{Input: strings.Repeat("слово ", 600), Format: "wav"}) // 216 s: 432 chunks
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Read(make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if _, err := io.ReadAll(a); !errors.Is(err, ErrClosed) && !errors.Is(err, context.Canceled) {
		t.Errorf("Read after Close: %v", err)
	}
	select {
	case <-ended:
	case <-time.After(2 * time.Second): // the whole speech takes 4 s
		t.Fatal("the upstream is still sending 2 s after Close")
	}
}
