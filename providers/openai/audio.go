package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// The OpenAI audio API: /v1/audio/speech answers the audio bytes, streamed
// (no usage: tts-1 is priced per input character); /v1/audio/transcriptions
// takes a multipart form and answers whisper's duration usage or the
// gpt-4o transcribers' token usage.

var (
	_ shlyuz.SpeechProvider        = (*Provider)(nil)
	_ shlyuz.TranscriptionProvider = (*Provider)(nil)
)

// maxTranscript bounds a transcription reply.
const maxTranscript = 8 << 20

// multipartBoundary is fixed so that the request is the same for the same
// call (golden files); audio cannot contain it by chance in practice, and
// the writer checks the boundary's form.
const multipartBoundary = "shlyuz-audio-7d1c0e5b9a2f4e8b"

// speechBody is the JSON request of /v1/audio/speech.
func speechBody(req *shlyuz.SpeechRequest) []byte {
	body := map[string]any{"model": req.Model, "input": req.Input, "voice": req.Voice, "response_format": req.Format}
	if req.Speed != nil {
		body["speed"] = *req.Speed
	}
	if req.Instructions != "" {
		body["instructions"] = req.Instructions
	}
	b, _ := plainjson.Marshal(body) // values read from a JSON request encode again
	return b
}

// Speak streams the speech as the upstream makes it.
func (p *Provider) Speak(ctx context.Context, req *shlyuz.SpeechRequest) (shlyuz.SpeechAudio, error) {
	h := p.header.Clone()
	h.Set("Content-Type", "application/json")
	b, err := p.callTo(strings.TrimRight(p.cfg.BaseURL, "/")+"/audio/speech", h, speechBody(req), "").Open(ctx)
	if err != nil {
		return nil, err
	}
	return upstream.NewRawAudio(b), nil
}

// transcriptionBody is the multipart request of /v1/audio/transcriptions:
// the file named audio.<format>, and verbose_json asked of whisper when the
// client wants timed segments.
func transcriptionBody(req *shlyuz.TranscriptionRequest) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.SetBoundary(multipartBoundary)
	_ = w.WriteField("model", req.Model)
	format := "json"
	if req.Segments && strings.HasPrefix(req.Model, "whisper") {
		format = "verbose_json"
	}
	_ = w.WriteField("response_format", format)
	for _, f := range [][2]string{{"language", req.Language}, {"prompt", req.Prompt}} {
		if f[1] != "" {
			_ = w.WriteField(f[0], f[1])
		}
	}
	if req.Temperature != nil {
		_ = w.WriteField("temperature", strconv.FormatFloat(*req.Temperature, 'f', -1, 64))
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.`+req.Format+`"`)
	h.Set("Content-Type", media.AudioMIME(req.Format))
	if part, err := w.CreatePart(h); err == nil {
		_, _ = part.Write(req.Audio)
	}
	_ = w.Close()
	return b.Bytes(), w.FormDataContentType()
}

// wireTranscription is the reply of /v1/audio/transcriptions as json or
// verbose_json.
type wireTranscription struct {
	Text     string                     `json:"text"`
	Language string                     `json:"language"`
	Duration float64                    `json:"duration"`
	Segments []shlyuz.TranscriptSegment `json:"segments"`
	Usage    *struct {
		Type         string          `json:"type"` // "duration" or "tokens"
		Seconds      *shlyuz.Decimal `json:"seconds"`
		InputTokens  int64           `json:"input_tokens"`
		OutputTokens int64           `json:"output_tokens"`
		Details      struct {
			AudioTokens int64 `json:"audio_tokens"`
			TextTokens  int64 `json:"text_tokens"`
		} `json:"input_token_details"`
	} `json:"usage"`
}

// Transcribe sends the audio and reads the transcript.
func (p *Provider) Transcribe(ctx context.Context, req *shlyuz.TranscriptionRequest) (*shlyuz.Transcription, error) {
	body, ct := transcriptionBody(req)
	h := p.header.Clone()
	h.Set("Content-Type", ct)
	data, err := p.callTo(strings.TrimRight(p.cfg.BaseURL, "/")+"/audio/transcriptions", h, body, "application/json").Reply(ctx, maxTranscript)
	if err != nil {
		return nil, err
	}
	return decodeTranscription(data)
}

func decodeTranscription(data []byte) (*shlyuz.Transcription, error) {
	var w wireTranscription
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, upstream.Malformed("the reply is not a transcription")
	}
	t := &shlyuz.Transcription{Text: w.Text, Language: w.Language, Duration: w.Duration, Segments: w.Segments}
	if u := w.Usage; u != nil {
		switch u.Type {
		case "duration":
			t.Usage = &shlyuz.AudioUsage{Seconds: u.Seconds}
		case "tokens":
			t.Usage = &shlyuz.AudioUsage{TextTokens: u.Details.TextTokens, AudioTokens: u.Details.AudioTokens, OutputTokens: u.OutputTokens}
			if t.Usage.TextTokens+t.Usage.AudioTokens != u.InputTokens { // no split given: all of it audio, the dearer
				t.Usage.TextTokens, t.Usage.AudioTokens = 0, u.InputTokens
			}
		}
	}
	return t, nil
}
