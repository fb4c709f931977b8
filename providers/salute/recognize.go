package salute

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// The limits of synchronous recognition: the body SaluteSpeech takes, and
// the audio's duration.
const (
	MaxSyncBytes   = 2 << 20
	MaxSyncSeconds = 60
)

// maxTranscript bounds a recognition reply.
const maxTranscript = 4 << 20

// The route's upstream model is SaluteSpeech's recognition model (general,
// callcenter, media, ivr), sent as model=; the catalog's own name (salute-…)
// or none leaves SaluteSpeech's default, general.

// languages maps ISO 639-1 codes (what OpenAI's API takes) to SaluteSpeech's.
var languages = map[string]string{"ru": "ru-RU", "en": "en-US", "kk": "kk-KZ"}

// accepted names the formats recognition takes, for the refusals.
const accepted = "wav (16-bit PCM, mono), ogg (Opus), mp3 and flac"

// recognizeBody is what goes to SaluteSpeech for the audio: the body and its
// Content-Type. A WAV loses its header: its samples go as audio/x-pcm.
func recognizeBody(req *shlyuz.TranscriptionRequest) (body []byte, contentType string, err *shlyuz.Error) {
	switch req.Format {
	case "wav":
		w, ok := media.ParseWAV(req.Audio)
		switch {
		case !ok:
			return nil, "", shlyuz.ErrUnsupportedFormat("file", "The WAV file is not PCM or is damaged; SaluteSpeech reads %s.", accepted)
		case w.Bits != 16:
			return nil, "", shlyuz.ErrUnsupportedFormat("file", "The WAV file has %d-bit samples; SaluteSpeech reads %s.", w.Bits, accepted)
		case w.Channels != 1:
			return nil, "", shlyuz.ErrUnsupportedFormat("file", "The WAV file has %d channels; SaluteSpeech reads %s.", w.Channels, accepted)
		}
		return w.Data, "audio/x-pcm;bit=16;rate=" + strconv.Itoa(w.Rate), nil
	case "ogg", "opus":
		if _, ok := media.OpusChannels(req.Audio); !ok {
			return nil, "", shlyuz.ErrUnsupportedFormat("file", "The Ogg file does not hold Opus; SaluteSpeech reads %s.", accepted)
		}
		return req.Audio, "audio/ogg;codecs=opus", nil
	case "mp3":
		return req.Audio, "audio/mpeg", nil
	case "flac":
		return req.Audio, "audio/flac", nil
	}
	return nil, "", shlyuz.ErrUnsupportedFormat("file", "SaluteSpeech reads %s, not %q.", accepted, req.Format)
}

// recognizeQuery is the query of speech:recognize: the language (Russian by
// default) and, when the route names one, the recognition model.
func recognizeQuery(req *shlyuz.TranscriptionRequest) (string, *shlyuz.Error) {
	lang := "ru-RU"
	if l := strings.TrimSpace(req.Language); l != "" {
		switch full, ok := languages[strings.ToLower(l)]; {
		case ok:
			lang = full
		case strings.Contains(l, "-") && upstream.IsIdentifier(l):
			lang = l
		default:
			return "", shlyuz.ErrInvalidValue("language", "SaluteSpeech recognizes ru, en and kk (or ru-RU, en-US, kk-KZ), not %q.", l)
		}
	}
	q := url.Values{"language": {lang}}
	if m := req.Model; m != "" && !strings.HasPrefix(m, "salute") {
		q.Set("model", m)
	}
	return q.Encode(), nil
}

// checkLimits refuses audio over synchronous recognition's limits.
func checkLimits(req *shlyuz.TranscriptionRequest, body []byte) *shlyuz.Error {
	if len(body) > MaxSyncBytes {
		return shlyuz.ErrInvalidValue("file", "The audio is %d bytes; SaluteSpeech recognizes at most %d bytes (2 MB) a request.", len(body), MaxSyncBytes)
	}
	secs := req.Seconds
	if secs.Sign() <= 0 {
		secs, _ = media.AudioSeconds(req.Format, req.Audio)
	}
	if s := secs.Ceil(); s > MaxSyncSeconds {
		return shlyuz.ErrTooLong("file", s, MaxSyncSeconds)
	}
	return nil
}

// recognition is speech:recognize's reply.
type recognition struct {
	Result []string `json:"result"`
	Status int      `json:"status"`
}

// Transcribe recognizes short audio synchronously. SaluteSpeech takes no
// prompt or temperature and gives no timed segments; it reports no usage.
func (p *Provider) Transcribe(ctx context.Context, req *shlyuz.TranscriptionRequest) (*shlyuz.Transcription, error) {
	body, ct, serr := recognizeBody(req)
	if serr != nil {
		return nil, serr
	}
	if serr := checkLimits(req, body); serr != nil {
		return nil, serr
	}
	q, serr := recognizeQuery(req)
	if serr != nil {
		return nil, serr
	}
	data, err := p.call("/speech:recognize?"+q, ct, body, "application/json").Reply(ctx, maxTranscript)
	if err != nil {
		return nil, err
	}
	return decodeRecognition(data, req)
}

func decodeRecognition(data []byte, req *shlyuz.TranscriptionRequest) (*shlyuz.Transcription, error) {
	var r recognition
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, upstream.Malformed("the reply is not a recognition result")
	}
	if r.Status != 0 && r.Status != 200 {
		if e := bodyError(data); e != nil {
			return nil, e
		}
		return nil, upstream.Malformed("the reply's status is " + strconv.Itoa(r.Status))
	}
	parts := make([]string, 0, len(r.Result))
	for _, s := range r.Result {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	// No duration: SaluteSpeech reports none, and the gateway shows the one it measured.
	return &shlyuz.Transcription{Text: strings.Join(parts, " "), Language: strings.ToLower(strings.TrimSpace(req.Language))}, nil
}
