package salute

import (
	"context"
	"net/url"
	"slices"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Voices are SaluteSpeech's 24 kHz voices (Kin_24000 speaks English).
var Voices = []string{"May_24000", "Nec_24000", "Bys_24000", "Tur_24000", "Ost_24000", "Pon_24000", "Kin_24000"}

// DefaultVoice speaks when the request names none.
const DefaultVoice = "May_24000"

// MaxInput is the most characters a synthesis takes.
const MaxInput = 4000

// speechFormats maps the gateway's formats to SaluteSpeech's.
var speechFormats = map[string]string{"opus": "opus", "wav": "wav16", "pcm": "pcm16"}

// synthesizeQuery is the query of text:synthesize for req.
func synthesizeQuery(req *shlyuz.SpeechRequest) (string, *shlyuz.Error) {
	format, ok := speechFormats[req.Format]
	if !ok {
		return "", shlyuz.ErrUnsupportedFormat("response_format", "SaluteSpeech speaks opus, wav and pcm, not %q.", req.Format)
	}
	voice := req.Voice
	if voice == "" {
		voice = DefaultVoice
	}
	if !slices.Contains(Voices, voice) {
		return "", shlyuz.ErrInvalidValue("voice", "SaluteSpeech has the voices May_24000, Nec_24000, Bys_24000, Tur_24000, Ost_24000, Pon_24000 and Kin_24000, not %q.", voice)
	}
	switch n := utf8.RuneCountInString(req.Input); {
	case n == 0:
		return "", shlyuz.ErrMissingField("input")
	case n > MaxInput:
		return "", shlyuz.ErrInvalidValue("input", "The input has %d characters; SaluteSpeech speaks at most %d a request.", n, MaxInput)
	}
	return url.Values{"format": {format}, "voice": {voice}}.Encode(), nil
}

// Speak synthesizes the text; the audio streams through as SaluteSpeech
// sends it (Ogg Opus, WAV or headerless 16-bit PCM at 24 kHz). Speed and
// instructions have no counterpart in the plain-text API and are left out.
func (p *Provider) Speak(ctx context.Context, req *shlyuz.SpeechRequest) (shlyuz.SpeechAudio, error) {
	q, serr := synthesizeQuery(req)
	if serr != nil {
		return nil, serr
	}
	b, err := p.call("/text:synthesize?"+q, "application/text", []byte(req.Input), "").Open(ctx)
	if err != nil {
		return nil, err
	}
	return upstream.NewRawAudio(b), nil
}
