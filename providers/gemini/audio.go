package gemini

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Audio through generateContent: transcription sends the audio as an
// inlineData part beside an instruction to transcribe it (the language and
// the client's prompt folded in) and reads the text and the token usage,
// audio tokens from promptTokensDetails' AUDIO modality; speech asks a TTS
// model for responseModalities ["AUDIO"] in a prebuilt voice and wraps the
// 16-bit mono PCM it answers (24 kHz) as WAV, or gives it raw for pcm.

var (
	_ shlyuz.TranscriptionProvider = (*Provider)(nil)
	_ shlyuz.SpeechProvider        = (*Provider)(nil)
)

// audioMIME is the inlineData type of each container Gemini reads.
var audioMIME = map[string]string{"wav": "audio/wav", "mp3": "audio/mp3", "aac": "audio/aac",
	"ogg": "audio/ogg", "flac": "audio/flac", "aiff": "audio/aiff"}

// audioAccepted names them, for the refusals.
const audioAccepted = "wav, mp3, aac, ogg, flac and aiff"

// MaxInlineAudio is the most audio sent inline: Gemini takes requests of at
// most 20 MB, and base64 makes the audio a third larger.
const MaxInlineAudio = 14 << 20

// transcribeInstruction is the text part that asks for the transcript.
func transcribeInstruction(req *shlyuz.TranscriptionRequest) string {
	var b strings.Builder
	b.WriteString("Transcribe the speech in this audio verbatim. Answer with the transcript alone: no introduction, no notes, no timestamps. If there is no speech, answer with nothing.")
	if l := strings.TrimSpace(req.Language); l != "" {
		b.WriteString(" The speech is in the language ")
		b.WriteString(strconv.Quote(l))
		b.WriteString(" (ISO 639-1).")
	}
	if p := strings.TrimSpace(req.Prompt); p != "" {
		b.WriteString("\n\nContext for the transcript (names, terms, spelling, style):\n")
		b.WriteString(p)
	}
	return b.String()
}

// transcriptionBody is the generateContent request of a transcription.
func transcriptionBody(req *shlyuz.TranscriptionRequest) ([]byte, *shlyuz.Error) {
	mt, ok := audioMIME[req.Format]
	switch {
	case !ok:
		return nil, shlyuz.ErrUnsupportedFormat("file", "Gemini reads %s audio, not %q.", audioAccepted, req.Format)
	case len(req.Audio) > MaxInlineAudio:
		return nil, shlyuz.ErrInvalidValue("file", "The audio is %d bytes; Gemini takes at most %d bytes inline.", len(req.Audio), MaxInlineAudio)
	}
	w := wireRequest{Contents: []content{{Role: "user", Parts: []part{
		{Text: transcribeInstruction(req)},
		{InlineData: &blob{MimeType: mt, Data: base64.StdEncoding.EncodeToString(req.Audio)}},
	}}}}
	if req.Temperature != nil {
		w.GenerationConfig = &generationConfig{Temperature: req.Temperature}
	}
	b, _ := plainjson.Marshal(w) // the request holds nothing that fails to encode
	return b, nil
}

// Transcribe asks the model for the audio's transcript.
func (p *Provider) Transcribe(ctx context.Context, req *shlyuz.TranscriptionRequest) (*shlyuz.Transcription, error) {
	body, serr := transcriptionBody(req)
	if serr != nil {
		return nil, serr
	}
	data, err := p.call(req.Model, body, false).Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	return decodeTranscription(data, req)
}

// answer reads a whole generateContent reply: its first candidate's parts,
// and its usage; an error object, a blocked prompt or a filtered candidate
// are errors.
func answer(data []byte) ([]part, *usageMetadata, *shlyuz.Error) {
	var w wireResponse
	if err := json.Unmarshal(data, &w); err != nil {
		e := upstream.Malformed("the reply is not valid JSON")
		e.Cause = err
		return nil, nil, e
	}
	switch {
	case w.Error != nil:
		return nil, nil, w.Error.streamError()
	case len(w.Candidates) == 0 && w.PromptFeedback != nil && w.PromptFeedback.BlockReason != "":
		return nil, nil, shlyuz.ErrContentPolicy("The upstream's safety filter refused the request (%s); nothing was charged.", safeWord(w.PromptFeedback.BlockReason))
	case len(w.Candidates) == 0:
		return nil, nil, upstream.Malformed("the reply has no candidates")
	}
	c := &w.Candidates[0]
	var parts []part
	if c.Content != nil {
		for _, pt := range c.Content.Parts {
			if !pt.Thought {
				parts = append(parts, pt)
			}
		}
	}
	if len(parts) == 0 && finishReason(c.FinishReason, false) == "content_filter" {
		return nil, nil, shlyuz.ErrContentPolicy("The upstream's safety filter withheld the answer (%s).", safeWord(c.FinishReason))
	}
	return parts, w.UsageMetadata, nil
}

func decodeTranscription(data []byte, req *shlyuz.TranscriptionRequest) (*shlyuz.Transcription, error) {
	parts, u, serr := answer(data)
	if serr != nil {
		return nil, serr
	}
	var text strings.Builder
	for _, pt := range parts {
		text.WriteString(pt.Text)
	}
	// No duration: Gemini reports none, and the gateway shows the one it measured.
	t := &shlyuz.Transcription{Text: strings.TrimSpace(text.String()), Language: strings.TrimSpace(req.Language)}
	if u != nil {
		audio := modality(u.PromptTokensDetails, "AUDIO")
		t.Usage = &shlyuz.AudioUsage{
			TextTokens:   u.PromptTokenCount + u.ToolUsePromptTokenCount - audio,
			AudioTokens:  audio,
			OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount,
		}
	}
	return t, nil
}

// speechBody is the generateContent request of speech; the instructions
// lead the text ("Say cheerfully: …", as Google's examples steer the style).
func speechBody(req *shlyuz.SpeechRequest) ([]byte, *shlyuz.Error) {
	if req.Format != "wav" && req.Format != "pcm" {
		return nil, shlyuz.ErrUnsupportedFormat("response_format", "Gemini speaks wav and pcm, not %q.", req.Format)
	}
	if req.Input == "" {
		return nil, shlyuz.ErrMissingField("input")
	}
	text := req.Input
	if in := strings.TrimSpace(req.Instructions); in != "" {
		text = strings.TrimRight(in, ":. ") + ": " + req.Input
	}
	gc := &generationConfig{ResponseModalities: []string{"AUDIO"}}
	if req.Voice != "" {
		gc.SpeechConfig = &speechConfig{}
		gc.SpeechConfig.VoiceConfig.PrebuiltVoiceConfig.VoiceName = req.Voice
	}
	b, _ := plainjson.Marshal(wireRequest{Contents: []content{{Role: "user", Parts: []part{{Text: text}}}}, GenerationConfig: gc})
	return b, nil
}

// Speak asks a TTS model for the speech; it comes whole, as one reply.
func (p *Provider) Speak(ctx context.Context, req *shlyuz.SpeechRequest) (shlyuz.SpeechAudio, error) {
	body, serr := speechBody(req)
	if serr != nil {
		return nil, serr
	}
	data, err := p.call(req.Model, body, false).Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	return decodeSpeech(data, req.Format)
}

// decodeSpeech reads the audio part of a TTS reply: PCM (audio/L16 with its
// rate, 24 kHz when unsaid) or a WAV file, in the format asked for.
func decodeSpeech(data []byte, format string) (*speech, error) {
	parts, u, serr := answer(data)
	if serr != nil {
		return nil, serr
	}
	var pcm []byte
	rate := 24000
	for _, pt := range parts {
		if pt.InlineData == nil || !strings.HasPrefix(pt.InlineData.MimeType, "audio/") {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(pt.InlineData.Data)
		if err != nil {
			return nil, upstream.Malformed("the audio is not valid base64")
		}
		mt, params, _ := mime.ParseMediaType(pt.InlineData.MimeType)
		switch mt {
		case "audio/wav", "audio/x-wav", "audio/wave":
			w, ok := media.ParseWAV(raw)
			if !ok || w.Bits != 16 || w.Channels != 1 {
				return nil, upstream.Malformed("the audio is not 16-bit mono PCM WAV")
			}
			pcm, rate = append(pcm, w.Data...), w.Rate
		case "audio/l16", "audio/pcm":
			if r, err := strconv.Atoi(params["rate"]); err == nil && r > 0 {
				rate = r
			}
			pcm = append(pcm, raw...)
		default:
			return nil, upstream.Malformed("the audio is " + upstream.Clip(mt) + ", not PCM")
		}
	}
	if len(pcm) == 0 {
		return nil, upstream.Malformed("the reply has no audio")
	}
	out := pcm
	if format == "wav" {
		out = append(media.WAVHeader(len(pcm), rate, 1), pcm...)
	}
	s := &speech{r: bytes.NewReader(out)}
	if u != nil {
		s.usage = &shlyuz.AudioUsage{TextTokens: u.PromptTokenCount, AudioTokens: u.CandidatesTokenCount}
	}
	return s, nil
}

// speech is audio that came whole, read out as a SpeechAudio.
type speech struct {
	r      *bytes.Reader
	usage  *shlyuz.AudioUsage
	closed atomic.Bool
}

// Read reads the audio; after Close it fails with ErrStreamClosed.
func (s *speech) Read(b []byte) (int, error) {
	if s.closed.Load() {
		return 0, ErrStreamClosed
	}
	n, err := s.r.Read(b)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// Usage is the tokens Gemini reported: the text in, the audio out.
func (s *speech) Usage() *shlyuz.AudioUsage { return s.usage }

// Close ends the reading; the call is over already.
func (s *speech) Close() error { s.closed.Store(true); return nil }
