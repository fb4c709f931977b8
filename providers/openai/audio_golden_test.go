package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
)

// TestSpeechRequestGolden checks /v1/audio/speech's request bodies.
func TestSpeechRequestGolden(t *testing.T) {
	golden.Run(t, "speech_request", ".json", func(t *testing.T, c golden.Case) []byte {
		var req shlyuz.SpeechRequest
		readCase(t, c.Path, &req)
		return golden.Indent(t, speechBody(&req))
	})
}

// TestTranscriptionRequestGolden checks /v1/audio/transcriptions' multipart
// requests (a fixed boundary, so they are the same every run).
func TestTranscriptionRequestGolden(t *testing.T) {
	golden.Run(t, "transcription_request", ".json", func(t *testing.T, c golden.Case) []byte {
		var req shlyuz.TranscriptionRequest
		readCase(t, c.Path, &req)
		body, ct := transcriptionBody(&req)
		return fmt.Appendf(nil, "Content-Type: %s\n\n%s", ct, body)
	})
}

// TestTranscriptionReplyGolden feeds recorded replies through Transcribe over HTTP.
func TestTranscriptionReplyGolden(t *testing.T) {
	golden.Run(t, "transcription_reply", ".json", func(t *testing.T, c golden.Case) []byte {
		url := golden.Serve(t, c.Path, "application/json")
		p := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: url}.WithDefaults())
		r, err := p.Transcribe(context.Background(), &shlyuz.TranscriptionRequest{Model: "m", Audio: []byte("RIFF"), Format: "wav"})
		if err != nil {
			return fmt.Appendf(nil, "error: %v\n", err)
		}
		out := fmt.Appendf(nil, "text=%q language=%q duration=%v\n", r.Text, r.Language, r.Duration)
		for _, s := range r.Segments {
			out = fmt.Appendf(out, "segment %v-%v %q\n", s.Start, s.End, s.Text)
		}
		if u := r.Usage; u != nil {
			secs := "none"
			if u.Seconds != nil {
				secs = u.Seconds.String()
			}
			out = fmt.Appendf(out, "usage: seconds=%s text=%d audio=%d output=%d\n", secs, u.TextTokens, u.AudioTokens, u.OutputTokens)
		}
		return out
	})
}

func readCase(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}
