package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
	"github.com/shlyuz/shlyuz/media"
)

// audioCase is a testdata/audio_request case: one of the two requests.
type audioCase struct {
	Transcription *shlyuz.TranscriptionRequest `json:"transcription"`
	Speech        *shlyuz.SpeechRequest        `json:"speech"`
}

// TestAudioRequestGolden checks the generateContent requests of
// transcription and speech, or the refusal.
func TestAudioRequestGolden(t *testing.T) {
	p, err := New(shlyuz.UpstreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	golden.Run(t, "audio_request", ".json", func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		var ac audioCase
		if err := json.Unmarshal(raw, &ac); err != nil {
			t.Fatal(err)
		}
		var body []byte
		var serr *shlyuz.Error
		model := ""
		if r := ac.Transcription; r != nil {
			body, serr = transcriptionBody(r)
			model = r.Model
		} else {
			body, serr = speechBody(ac.Speech)
			model = ac.Speech.Model
		}
		if serr != nil {
			return []byte(golden.Describe(t, serr))
		}
		return fmt.Appendf(nil, "POST %s\n%s\n", strings.TrimPrefix(p.endpoint(model, false), DefaultBaseURL), golden.Indent(t, body))
	})
}

// TestAudioReplyGolden feeds recorded replies through Transcribe
// (transcription_*) or Speak (speech_*, asked for wav) over HTTP.
func TestAudioReplyGolden(t *testing.T) {
	golden.Run(t, "audio_reply", ".json", func(t *testing.T, c golden.Case) []byte {
		url := golden.Serve(t, c.Path, "application/json; charset=UTF-8")
		p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: url})
		if err != nil {
			t.Fatal(err)
		}
		defer p.CloseIdleConnections()
		ctx := context.Background()
		var out bytes.Buffer
		if strings.HasPrefix(c.Name, "transcription_") {
			tr, err := p.Transcribe(ctx, &shlyuz.TranscriptionRequest{Model: "gemini-2.5-flash", Audio: []byte("fLaC"), Format: "flac", Language: "ru"})
			if err != nil {
				return []byte(golden.Describe(t, err))
			}
			fmt.Fprintf(&out, "text=%q language=%q duration=%v\n", tr.Text, tr.Language, tr.Duration)
			if tr.Usage != nil {
				fmt.Fprintf(&out, "usage: text=%d audio=%d output=%d\n", tr.Usage.TextTokens, tr.Usage.AudioTokens, tr.Usage.OutputTokens)
			} else {
				out.WriteString("usage: none\n")
			}
			return out.Bytes()
		}
		a, err := p.Speak(ctx, &shlyuz.SpeechRequest{Model: "gemini-2.5-flash-preview-tts", Input: "hi", Format: "wav"})
		if err != nil {
			return []byte(golden.Describe(t, err))
		}
		defer a.Close()
		b, err := io.ReadAll(a)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := media.ParseWAV(b)
		secs, _ := media.AudioSeconds("wav", b)
		fmt.Fprintf(&out, "wav=%v rate=%d channels=%d bits=%d data=%d bytes seconds=%s\n", ok, w.Rate, w.Channels, w.Bits, len(w.Data), secs)
		if u := a.Usage(); u != nil {
			fmt.Fprintf(&out, "usage: text=%d audio=%d\n", u.TextTokens, u.AudioTokens)
		}
		return out.Bytes()
	})
}
