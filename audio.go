package shlyuz

import (
	"context"
	"io"
	"slices"
	"unicode/utf8"
)

// Audio pricing units: what a speech or transcription model's price counts.
const (
	// AudioUnitCharacter prices speech per input character
	// (SpeechSpec.USDPerMChars), billed in full once any audio reached the
	// client, 0 when none did.
	AudioUnitCharacter = "character"
	// AudioUnitSecond prices transcription per second of audio
	// (TranscriptionSpec.USDPerMinute), counted in blocks of BlockSeconds.
	AudioUnitSecond = "second"
	// AudioUnitToken prices the upstream's reported tokens: text in and out at
	// the model's prompt and completion prices (Model.USD), audio tokens at
	// USDPerMAudioTokens.
	AudioUnitToken = "token"
)

// SpeechSpec is what a text-to-speech model takes and costs (a catalog
// model's Speech).
type SpeechSpec struct {
	Voices        []string `json:"voices" yaml:"voices"`
	DefaultVoice  string   `json:"default_voice" yaml:"default_voice"`
	Formats       []string `json:"formats" yaml:"formats"` // mp3, opus, aac, flac, wav, pcm
	DefaultFormat string   `json:"default_format" yaml:"default_format"`
	MaxInput      int      `json:"max_input_chars" yaml:"max_input_chars"`
	Unit          string   `json:"unit" yaml:"unit"` // AudioUnitCharacter or AudioUnitToken
	// USDPerMChars is a million input characters' price (AudioUnitCharacter),
	// charged per BlockChars started (1 when unset; Yandex's v3 bills units
	// of 250 characters).
	USDPerMChars Decimal `json:"usd_per_mchars,omitzero" yaml:"usd_per_mchars"`
	BlockChars   int64   `json:"block_chars,omitempty" yaml:"block_chars"`
	// AudioTokenPrice prices the speech's audio output tokens; MaxSeconds
	// bounds the reservation with it (AudioUnitToken).
	AudioTokenPrice `yaml:",inline"`
	MaxSeconds      int64 `json:"max_seconds,omitempty" yaml:"max_seconds"`
}

// AudioTokenPrice is the price of a token-priced audio model's audio tokens
// (out for speech, in for transcription) and how many a second of audio is.
type AudioTokenPrice struct {
	USDPerMAudioTokens   Decimal `json:"usd_per_m_audio_tokens,omitzero" yaml:"usd_per_m_audio_tokens"`
	AudioTokensPerSecond int64   `json:"audio_tokens_per_second,omitempty" yaml:"audio_tokens_per_second"`
}

// TranscriptionSpec is what a speech-to-text model takes and costs (a
// catalog model's Transcription).
type TranscriptionSpec struct {
	Formats         []string `json:"formats" yaml:"formats"`                   // audio it reads: wav, mp3, ogg, flac, …
	ResponseFormats []string `json:"response_formats" yaml:"response_formats"` // json, verbose_json, text, srt, vtt
	MaxBytes        int64    `json:"max_bytes" yaml:"max_bytes"`
	MaxSeconds      int64    `json:"max_seconds" yaml:"max_seconds"`
	Unit            string   `json:"unit" yaml:"unit"` // AudioUnitSecond or AudioUnitToken
	// USDPerMinute is a minute of audio's price, charged per BlockSeconds
	// started (1 when unset; Yandex bills 15-second blocks) and for at least
	// MinSeconds (AudioUnitSecond).
	USDPerMinute Decimal `json:"usd_per_minute,omitzero" yaml:"usd_per_minute"`
	BlockSeconds int64   `json:"block_seconds,omitempty" yaml:"block_seconds"`
	MinSeconds   int64   `json:"min_seconds,omitempty" yaml:"min_seconds"`
	// AudioTokenPrice prices the audio's input tokens; the transcript's text
	// is reserved for at most the model's MaxOutputTokens (AudioUnitToken).
	AudioTokenPrice `yaml:",inline"`
}

// AudioUsage is what an upstream reported an audio call used.
type AudioUsage struct {
	Seconds      *Decimal // billed seconds (whisper's usage.seconds, Yandex's billing units)
	TextTokens   int64    // text input tokens (the prompt, the speech's input)
	AudioTokens  int64    // audio tokens, in (transcription) or out (speech)
	OutputTokens int64    // text output tokens (a transcript)
}

// SpeechRequest is a text-to-speech call as it goes to an upstream.
type SpeechRequest struct {
	Model        string // the model's name at the upstream
	Input        string
	Voice        string
	Format       string // mp3, opus, aac, flac, wav, pcm: what the client gets
	Speed        *float64
	Instructions string
}

// SpeechAudio is an upstream's speech as it arrives, in the requested format.
// Read returns io.EOF at the end, an *Error on a failure, and the same again
// on every later call (so bytes read with the outcome are never lost with it); Usage is what the
// upstream reported (nil if nothing), final once Read returned io.EOF; Close
// stops the upstream call and may be called at any time.
type SpeechAudio interface {
	io.Reader
	Usage() *AudioUsage
	Close() error
}

// SpeechProvider is the capability of an adapter that speaks text. An error
// before any audio is an *Error as for Chat.
type SpeechProvider interface {
	Speak(ctx context.Context, req *SpeechRequest) (SpeechAudio, error)
}

// TranscriptionRequest is a speech-to-text call as it goes to an upstream.
type TranscriptionRequest struct {
	Model       string // the model's name at the upstream
	Audio       []byte
	Format      string // the container, as AudioFormat names it: wav, mp3, ogg, flac, …
	Language    string
	Prompt      string
	Temperature *float64
	Seconds     Decimal // the audio's duration as the gateway measured it (an upper bound when estimated)
	Segments    bool    // the client asked for timed segments (verbose_json, srt, vtt)
}

// TranscriptSegment is a timed part of a transcript.
type TranscriptSegment struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Text  string  `json:"text"`
}

// Transcription is an upstream's finished transcript.
type Transcription struct {
	Text     string
	Language string
	Duration float64             // seconds, when the upstream said
	Segments []TranscriptSegment // when the upstream gave them
	Usage    *AudioUsage         // nil: the upstream reported none
}

// TranscriptionProvider is the capability of an adapter that transcribes
// audio. A format the upstream cannot read is ErrUnsupportedFormat.
type TranscriptionProvider interface {
	Transcribe(ctx context.Context, req *TranscriptionRequest) (*Transcription, error)
}

// SpeechChars is the number of characters speech of input is billed for.
func SpeechChars(input string) int64 { return int64(utf8.RuneCountInString(input)) }

// Check says which field of a speech request the spec refuses, if any.
func (s *SpeechSpec) Check(model, input, voice, format string) *Error {
	switch n := utf8.RuneCountInString(input); {
	case n == 0:
		return ErrMissingField("input")
	case s.MaxInput > 0 && n > s.MaxInput:
		return ErrInvalidValue("input", "The input has %d characters; the model %q speaks at most %d a request.", n, model, s.MaxInput)
	case len(s.Voices) > 0 && !slices.Contains(s.Voices, voice):
		return ErrInvalidValue("voice", "The model %q has the voices %s, not %q.", model, joinQuoted(s.Voices), voice)
	case !slices.Contains(s.Formats, format):
		return ErrUnsupportedFormat("response_format", "The model %q speaks in %s, not %q.", model, joinQuoted(s.Formats), format)
	}
	return nil
}

// SpeechWorst is the most speech of input, of inputTokens tokens at most
// (tokens.Text), may cost at the catalog price.
func (m *PricedModel) SpeechWorst(input string, inputTokens int64, p Pricing) Credits {
	s := m.Speech
	if s.Unit == AudioUnitToken {
		return m.audioTokensCost(&AudioUsage{TextTokens: inputTokens + 16, AudioTokens: s.MaxSeconds * s.AudioTokensPerSecond}, s.USDPerMAudioTokens, p)
	}
	return usdCredits(s.USDPerMChars.MulInt(s.BilledChars(input)).Quo(1_000_000), p)
}

// BilledChars is the characters speech of input is billed for: rounded up
// to the spec's block.
func (s *SpeechSpec) BilledChars(input string) int64 {
	n := SpeechChars(input)
	if b := s.BlockChars; b > 1 {
		n = (n + b - 1) / b * b
	}
	return n
}

// SpeechCost is what speech of input costs at the catalog price once any of
// it reached the client: its characters, or the upstream's reported tokens
// (the worst case when it reported none).
func (m *PricedModel) SpeechCost(input string, inputTokens int64, u *AudioUsage, p Pricing) Credits {
	if m.Speech.Unit == AudioUnitToken && u != nil && u.AudioTokens > 0 {
		return m.audioTokensCost(u, m.Speech.USDPerMAudioTokens, p)
	}
	return m.SpeechWorst(input, inputTokens, p)
}

// TranscriptionWorst is the most transcribing audio of the given duration,
// with a prompt of promptTokens tokens at most (tokens.Text), may cost at the
// catalog price.
func (m *PricedModel) TranscriptionWorst(seconds Decimal, promptTokens int64, p Pricing) Credits {
	s := m.Transcription
	if s.Unit == AudioUnitToken {
		return m.audioTokensCost(&AudioUsage{TextTokens: promptTokens + 16, AudioTokens: seconds.MulInt(s.AudioTokensPerSecond).Ceil() + 1,
			OutputTokens: m.MaxOutput()}, s.USDPerMAudioTokens, p)
	}
	return m.secondsCost(seconds, p)
}

// TranscriptionCost is what a transcript costs at the catalog price: by the
// upstream's reported seconds or tokens, else by the measured duration.
func (m *PricedModel) TranscriptionCost(seconds Decimal, u *AudioUsage, p Pricing) Credits {
	s := m.Transcription
	switch {
	case s.Unit == AudioUnitToken && u != nil && u.AudioTokens+u.TextTokens+u.OutputTokens > 0:
		return m.audioTokensCost(u, s.USDPerMAudioTokens, p)
	case s.Unit == AudioUnitToken:
		return m.TranscriptionWorst(seconds, 0, p)
	case u != nil && u.Seconds != nil:
		return m.secondsCost(*u.Seconds, p)
	}
	return m.secondsCost(seconds, p)
}

// BilledSeconds is the whole seconds a transcription of the given duration
// is billed for: rounded up to the spec's block, at least its minimum.
func (s *TranscriptionSpec) BilledSeconds(seconds Decimal) int64 {
	secs := seconds.Ceil()
	if b := s.BlockSeconds; b > 1 {
		secs = (secs + b - 1) / b * b
	}
	return max(secs, s.MinSeconds)
}

func (m *PricedModel) secondsCost(seconds Decimal, p Pricing) Credits {
	s := m.Transcription
	return usdCredits(s.USDPerMinute.MulInt(s.BilledSeconds(seconds)).Quo(60), p)
}

// audioTokensCost prices text tokens at the model's prompt and completion
// prices and audio tokens at perMAudio, in one rounding.
func (m *PricedModel) audioTokensCost(u *AudioUsage, perMAudio Decimal, p Pricing) Credits {
	usd := m.USD.PromptPerMTok.MulInt(u.TextTokens).
		Add(m.USD.CompletionPerMTok.MulInt(u.OutputTokens)).
		Add(perMAudio.MulInt(u.AudioTokens)).Quo(1_000_000)
	return usdCredits(usd, p)
}
