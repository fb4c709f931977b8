package yandex

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// SpeechKit synthesis. A model whose name ends in "-v3" (speechkit-tts-v3)
// speaks through API v3's utteranceSynthesis, whose reply is
// newline-delimited JSON objects carrying base64 audio chunks (tts_v3.go);
// any other (speechkit-tts) through API v1's tts:synthesize, a form whose
// reply is the audio itself, chunked. Either is streamed through as it
// arrives. The formats: mp3 and opus (Ogg Opus) as SpeechKit makes them; wav
// and pcm from 16-bit PCM (pcm at 24 kHz, as OpenAI's; v1's PCM at 48 kHz
// is halved, and wrapped in a WAV header for wav). Speech is billed by
// characters, so its usage is nil.

var _ shlyuz.SpeechProvider = (*Provider)(nil)

const (
	ttsV1Path = "/speech/v1/tts:synthesize"
	ttsV3Path = "/tts/v3/utteranceSynthesis"

	pcmRate   = 24000 // the rate of the pcm format
	ttsV1Rate = 48000 // the rate v1's lpcm is asked at
)

// ttsFormats is what the adapter speaks, for refusals.
const ttsFormats = `"mp3", "opus", "wav" and "pcm"`

// voiceLanguages are the languages of v1's voices that do not speak ru-RU.
var voiceLanguages = map[string]string{"john": "en-US", "lea": "de-DE", "naomi": "he-IL", "madi": "kk-KK", "amira": "kk-KK", "nigora": "uz-UZ"}

// Speak starts speech of req.Input; it returns once the first audio came,
// so that every failure before it is an error here.
func (p *Provider) Speak(ctx context.Context, req *shlyuz.SpeechRequest) (shlyuz.SpeechAudio, error) {
	if req.Model == "" {
		return nil, shlyuz.ErrInternal(fmt.Errorf("yandex: the request names no upstream model"))
	}
	if s := req.Speed; s != nil && (*s < 0.1 || *s > 3) {
		return nil, shlyuz.ErrInvalidValue("speed", "Yandex SpeechKit speaks 0.1 to 3 times as fast as normal, not %v.", *s)
	}
	if strings.HasSuffix(req.Model, "-v3") {
		return p.speakV3(ctx, req)
	}
	form, err := ttsV1Form(req, p.cfg.FolderID)
	if err != nil {
		return nil, err
	}
	h := p.header.Clone()
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	h.Del("Accept")
	b, err := p.open(ctx, p.tts+ttsV1Path, h, []byte(form.Encode()))
	if err != nil {
		return nil, err
	}
	// Wait for the first byte: a reply cut before it is a failure Speak reports.
	b.Watch()
	_, err = b.R.Peek(1)
	b.Unwatch()
	if err != nil {
		var e error = upstream.Malformed("the reply holds no audio")
		if err != io.EOF || b.Cancelled() {
			e = b.ReadError(err)
		}
		b.Release()
		return nil, e
	}
	var audio shlyuz.SpeechAudio = upstream.NewRawAudio(b)
	switch req.Format {
	case "wav":
		audio = &withHeader{SpeechAudio: audio, head: streamWAVHeader(ttsV1Rate)}
	case "pcm":
		audio = &halfRate{SpeechAudio: audio}
	}
	return audio, nil
}

// ttsV1Form is v1's request form.
func ttsV1Form(req *shlyuz.SpeechRequest, folder string) (url.Values, error) {
	f := url.Values{}
	f.Set("text", req.Input)
	lang := "ru-RU"
	if l, ok := voiceLanguages[req.Voice]; ok {
		lang = l
	}
	f.Set("lang", lang)
	if req.Voice != "" {
		f.Set("voice", req.Voice)
	}
	switch req.Format {
	case "mp3", "":
		f.Set("format", "mp3")
	case "opus":
		f.Set("format", "oggopus")
	case "wav", "pcm":
		f.Set("format", "lpcm")
		f.Set("sampleRateHertz", strconv.Itoa(ttsV1Rate))
	default:
		return nil, unsupportedSpeech(req.Format)
	}
	if req.Speed != nil {
		f.Set("speed", strconv.FormatFloat(*req.Speed, 'f', -1, 64))
	}
	f.Set("folderId", folder)
	return f, nil
}

func unsupportedSpeech(format string) *shlyuz.Error {
	return shlyuz.ErrUnsupportedFormat("response_format", "Yandex SpeechKit speaks in %s, not %q.", ttsFormats, format)
}

// open posts body and returns the reply's body once its headers came.
func (p *Provider) open(ctx context.Context, u string, h http.Header, body []byte) (*upstream.Body, error) {
	return p.callWith(upstream.Post(p.client, u, h, body, "")).Open(ctx)
}

// ttsV3Request is API v3's utteranceSynthesis body. Each hint holds one key.
type ttsV3Request struct {
	Text            string       `json:"text"`
	Hints           []ttsHint    `json:"hints,omitempty"`
	OutputAudioSpec ttsAudioSpec `json:"outputAudioSpec"`
	UnsafeMode      bool         `json:"unsafeMode"`
}

type ttsHint struct {
	Voice string   `json:"voice,omitempty"`
	Speed *float64 `json:"speed,omitempty"`
}

type ttsAudioSpec struct {
	ContainerAudio *struct {
		ContainerAudioType string `json:"containerAudioType"`
	} `json:"containerAudio,omitempty"`
	RawAudio *struct {
		AudioEncoding   string `json:"audioEncoding"`
		SampleRateHertz string `json:"sampleRateHertz"`
	} `json:"rawAudio,omitempty"`
}

// ttsV3Body is v3's request: unsafeMode lifts the 250-character limit.
func ttsV3Body(req *shlyuz.SpeechRequest) ([]byte, error) {
	r := ttsV3Request{Text: req.Input, UnsafeMode: true}
	if req.Voice != "" {
		r.Hints = append(r.Hints, ttsHint{Voice: req.Voice})
	}
	if req.Speed != nil {
		r.Hints = append(r.Hints, ttsHint{Speed: req.Speed})
	}
	container := map[string]string{"mp3": "MP3", "": "MP3", "opus": "OGG_OPUS", "wav": "WAV"}[req.Format]
	switch {
	case container != "":
		r.OutputAudioSpec.ContainerAudio = &struct {
			ContainerAudioType string `json:"containerAudioType"`
		}{container}
	case req.Format == "pcm":
		r.OutputAudioSpec.RawAudio = &struct {
			AudioEncoding   string `json:"audioEncoding"`
			SampleRateHertz string `json:"sampleRateHertz"`
		}{"LINEAR16_PCM", strconv.Itoa(pcmRate)}
	default:
		return nil, unsupportedSpeech(req.Format)
	}
	b, _ := json.Marshal(r)
	return b, nil
}

func (p *Provider) speakV3(ctx context.Context, req *shlyuz.SpeechRequest) (shlyuz.SpeechAudio, error) {
	body, err := ttsV3Body(req)
	if err != nil {
		return nil, err
	}
	b, err := p.open(ctx, p.tts+ttsV3Path, p.header, body)
	if err != nil {
		return nil, err
	}
	a := &chunkedAudio{b: b, name: p.cfg.Name, now: p.now}
	if a.pending, a.err = a.next(); a.err != nil {
		return nil, a.err // before any audio
	}
	return a, nil
}
