package conformance

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// AudioTarget is an adapter of speech and/or transcription under test.
type AudioTarget struct {
	Name string
	// New makes the adapter pointed at the fake upstream's root; it
	// implements shlyuz.SpeechProvider, shlyuz.TranscriptionProvider or both.
	New func(t *testing.T, baseURL string) any

	// Speech: a request that speaks (its Format replaced by each of
	// Formats), one the fake fails before any audio, and one it cuts after
	// the first chunk (a zero Model: not checked).
	Speech                      shlyuz.SpeechRequest
	Formats                     []string
	SpeechFailed, SpeechCut     shlyuz.SpeechRequest
	Transcription               shlyuz.TranscriptionRequest // Audio and Format filled by the suite
	TranscriptionFormats        []string                    // wav, mp3 and/or ogg: what the adapter reads
	TranscriptionFailed         shlyuz.TranscriptionRequest // the fake fails it (Audio filled by the suite as WAV)
	Unreadable                  string                      // a format the upstream cannot read ("" if none): refused before the call
	TranscriptionReportsSeconds bool                        // the upstream reports billed seconds (else tokens or nothing)
}

// RunAudio runs the audio part of the suite, as subtests of tg.Name/audio,
// over real HTTP against providers/fake. It checks:
//
//   - speech in each format: audio of that container (PCM: whole samples)
//     whose duration can be read, streamed to the end with io.EOF;
//   - speech the fake fails before any audio: an *shlyuz.Error that is the
//     upstream's fault, and no stream;
//   - speech cut after the first chunk: bytes, then an *shlyuz.Error (never
//     a clean io.EOF that would pass a broken file as whole), and the same
//     error from every later Read;
//   - Close in the middle of speech: the next Read fails at once;
//   - transcription of each format: a text, and usage when the upstream
//     reports seconds;
//   - a failed transcription: an upstream fault; an unreadable format:
//     a 400 unsupported_format with a param, not the upstream's fault,
//     refused before any call;
//   - a context cancelled before the call: an error, at once.
func RunAudio(t *testing.T, tg AudioTarget) {
	t.Helper()
	t.Run(tg.Name+"/audio", func(t *testing.T) {
		f := fake.New(fake.Options{ReplyTokens: ReplyTokens})
		srv := httptest.NewServer(f)
		t.Cleanup(srv.Close)
		p := tg.New(t, srv.URL)
		if sp, ok := p.(shlyuz.SpeechProvider); ok {
			runSpeech(t, sp, tg)
		}
		if tp, ok := p.(shlyuz.TranscriptionProvider); ok {
			runTranscription(t, tp, tg, f)
		}
	})
}

func runSpeech(t *testing.T, p shlyuz.SpeechProvider, tg AudioTarget) {
	for _, format := range tg.Formats {
		t.Run("speech_"+format, func(t *testing.T) {
			req := tg.Speech
			req.Format = format
			a, err := p.Speak(opContext(t), &req)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			audio, err := io.ReadAll(a)
			if err != nil {
				t.Fatal(err)
			}
			container := map[string]string{"mp3": "mp3", "opus": "ogg", "wav": "wav", "flac": "flac"}[format]
			switch {
			case format == "pcm":
				if len(audio) == 0 || len(audio)%2 != 0 {
					t.Fatalf("%d bytes of 16-bit PCM", len(audio))
				}
			case media.SniffAudio(audio) != container:
				t.Fatalf("the %s speech is %q", format, media.SniffAudio(audio))
			default:
				if secs, exact := media.AudioSeconds(container, audio); !exact || secs.Sign() <= 0 {
					t.Fatalf("the %s speech's duration cannot be read (%s, %v)", format, secs, exact)
				}
			}
		})
	}
	t.Run("speech_failed", func(t *testing.T) {
		req := tg.SpeechFailed
		a, err := p.Speak(opContext(t), &req)
		var e *shlyuz.Error
		if a != nil || !errors.As(err, &e) || (!e.UpstreamFault && e.Status < 500) {
			t.Fatalf("speech failed upstream: %v (%+v), want an upstream fault and no stream", err, e)
		}
	})
	if tg.SpeechCut.Model != "" {
		t.Run("speech_cut", func(t *testing.T) {
			req := tg.SpeechCut
			a, err := p.Speak(opContext(t), &req)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			n, err := io.Copy(io.Discard, a)
			var e *shlyuz.Error
			if n == 0 || !errors.As(err, &e) {
				t.Fatalf("a cut speech: %d bytes, then %v; want bytes then an *shlyuz.Error", n, err)
			}
			if _, again := a.Read(make([]byte, 16)); again == nil || errors.Is(again, io.EOF) {
				t.Fatalf("a Read after the failure gives %v, want the failure again", again)
			}
		})
	}
	t.Run("speech_closed", func(t *testing.T) {
		req := tg.Speech
		req.Input = strings.Repeat(req.Input+" ", 40)
		req.Format = tg.Formats[0]
		a, err := p.Speak(opContext(t), &req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Read(make([]byte, 64)); err != nil {
			t.Fatal(err)
		}
		a.Close()
		done := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, a)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("Read after Close ended cleanly")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Read after Close hangs")
		}
	})
	t.Run("speech_cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := tg.Speech
		req.Format = tg.Formats[0]
		if a, err := p.Speak(ctx, &req); err == nil {
			a.Close()
			t.Fatal("a cancelled speech went through")
		}
	})
}

// sampleAudio is two seconds of audio in a format the fake makes.
func sampleAudio(format string) []byte {
	switch format {
	case "mp3":
		return mediatest.MP3(2)
	case "ogg":
		return mediatest.OggOpus(2)
	}
	return mediatest.WAV(2, 16000)
}

func runTranscription(t *testing.T, p shlyuz.TranscriptionProvider, tg AudioTarget, f *fake.Server) {
	for _, format := range tg.TranscriptionFormats {
		t.Run("transcribe_"+format, func(t *testing.T) {
			req := tg.Transcription
			req.Audio, req.Format = sampleAudio(format), format
			req.Seconds, _ = media.AudioSeconds(format, req.Audio)
			r, err := p.Transcribe(opContext(t), &req)
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(r.Text) == "" {
				t.Fatal("an empty transcript")
			}
			if tg.TranscriptionReportsSeconds && (r.Usage == nil || r.Usage.Seconds == nil || r.Usage.Seconds.Sign() <= 0) {
				t.Fatalf("usage %+v, want billed seconds", r.Usage)
			}
		})
	}
	t.Run("transcribe_failed", func(t *testing.T) {
		req := tg.TranscriptionFailed
		req.Audio, req.Format = sampleAudio("wav"), "wav"
		req.Seconds, _ = media.AudioSeconds("wav", req.Audio)
		_, err := p.Transcribe(opContext(t), &req)
		var e *shlyuz.Error
		if !errors.As(err, &e) || (!e.UpstreamFault && e.Status < 500) {
			t.Fatalf("a failed transcription: %v (%+v), want an upstream fault", err, e)
		}
	})
	if tg.Unreadable != "" {
		t.Run("transcribe_unreadable", func(t *testing.T) {
			req := tg.Transcription
			req.Audio, req.Format = []byte("\x1a\x45\xdf\xa3 some webm or other audio"), tg.Unreadable
			before := f.Requests()
			_, err := p.Transcribe(opContext(t), &req)
			var e *shlyuz.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Code != "unsupported_format" || e.Param == nil || e.UpstreamFault {
				t.Fatalf("an unreadable format: %v (%+v), want a 400 unsupported_format", err, e)
			}
			if n := f.Requests() - before; n != 0 {
				t.Fatalf("an unreadable format reached the upstream (%d requests), want it refused before any call", n)
			}
		})
	}
	t.Run("transcribe_cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := tg.Transcription
		req.Audio, req.Format = sampleAudio("wav"), "wav"
		if _, err := p.Transcribe(ctx, &req); err == nil {
			t.Fatal("a cancelled transcription went through")
		}
	})
}
