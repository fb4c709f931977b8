package yandex

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// SpeechKit recognition. Short mono audio that API v1 reads (at most 30 s
// and 1 MB of 16-bit PCM at 8, 16 or 48 kHz, a WAV sent as its headerless
// samples, or of Ogg Opus) goes to v1's synchronous stt:recognize, whose
// YaCloud-Billing-Units header is the billed seconds. The rest (longer audio,
// WAV at other rates, MP3) goes to API v3's recognizeFileAsync as base64: the
// operation is polled within the client's request, then getRecognition's
// newline-delimited events give the final utterances, with their times. Audio
// neither reads is refused before any call.

var _ shlyuz.TranscriptionProvider = (*Provider)(nil)

const (
	sttV1Path     = "/speech/v1/stt:recognize"
	sttV3Path     = "/stt/v3/recognizeFileAsync"
	sttResultPath = "/stt/v3/getRecognition"

	sttV1MaxBytes   = 1 << 20
	sttV1MaxSeconds = 30
	sttV3MaxBytes   = 45 << 20 // 60 MB of base64, v3's limit of content
)

// sttAccepts is what the adapter can send SpeechKit, for refusals.
const sttAccepts = "mono WAV (16-bit PCM), mono Ogg Opus and MP3"

// sttV1Rates are the sample rates v1 reads raw PCM at.
var sttV1Rates = []int{8000, 16000, 48000}

// sttPlan is how a transcription goes upstream.
type sttPlan struct {
	sync   bool   // API v1
	format string // v1: lpcm or oggopus; v3: WAV, OGG_OPUS or MP3
	rate   int    // v1's lpcm sample rate
	audio  []byte // v1: the body; v3: the file
}

// unsupportedAudio refuses audio SpeechKit cannot read; what says why.
func unsupportedAudio(what string) *shlyuz.Error {
	return shlyuz.ErrUnsupportedFormat("file", "Yandex SpeechKit reads %s; %s.", sttAccepts, what)
}

// planSTT picks the API and the wire format of audio by its container, as
// read from its bytes (declared names it when they say nothing).
func planSTT(audio []byte, declared string) (sttPlan, error) {
	kind := media.SniffAudio(audio)
	switch kind {
	case "wav":
		w, ok := media.ParseWAV(audio)
		switch {
		case !ok:
			return sttPlan{}, unsupportedAudio("this WAV file holds no PCM samples")
		case w.Channels != 1:
			return sttPlan{}, unsupportedAudio(fmt.Sprintf("this WAV file has %d channels", w.Channels))
		case w.Bits != 16:
			return sttPlan{}, unsupportedAudio(fmt.Sprintf("this WAV file has %d-bit samples", w.Bits))
		case slices.Contains(sttV1Rates, w.Rate) && len(w.Data) <= sttV1MaxBytes && len(w.Data) <= sttV1MaxSeconds*w.Rate*2:
			return sttPlan{sync: true, format: "lpcm", rate: w.Rate, audio: w.Data}, nil
		}
		return asyncPlan("WAV", audio)
	case "ogg":
		channels, ok := media.OpusChannels(audio)
		switch {
		case !ok:
			return sttPlan{}, unsupportedAudio("this Ogg file is not Opus")
		case channels != 1:
			return sttPlan{}, unsupportedAudio(fmt.Sprintf("this Ogg Opus file has %d channels", channels))
		}
		if secs, exact := media.AudioSeconds("ogg", audio); exact && secs.Cmp(shlyuz.NewDecimalFrac(sttV1MaxSeconds, 1)) <= 0 && len(audio) <= sttV1MaxBytes {
			return sttPlan{sync: true, format: "oggopus", audio: audio}, nil
		}
		return asyncPlan("OGG_OPUS", audio)
	case "mp3":
		return asyncPlan("MP3", audio)
	case "":
		if len(audio) == 0 {
			return sttPlan{}, unsupportedAudio("the file is empty")
		}
		if declared != "" {
			return sttPlan{}, unsupportedAudio(fmt.Sprintf("this file is not %s audio it can read", strconv.Quote(declared)))
		}
		return sttPlan{}, unsupportedAudio("this file is none of them")
	}
	return sttPlan{}, unsupportedAudio("this file is " + strings.ToUpper(kind))
}

func asyncPlan(container string, audio []byte) (sttPlan, error) {
	if len(audio) > sttV3MaxBytes {
		return sttPlan{}, shlyuz.ErrInvalidValue("file", "The audio is %d bytes; Yandex SpeechKit takes at most %d.", len(audio), sttV3MaxBytes)
	}
	return sttPlan{format: container, audio: audio}, nil
}

// Transcribe recognizes req.Audio in req.Language (ru-RU when it names none).
func (p *Provider) Transcribe(ctx context.Context, req *shlyuz.TranscriptionRequest) (*shlyuz.Transcription, error) {
	if req.Model == "" {
		return nil, shlyuz.ErrInternal(fmt.Errorf("yandex: the request names no upstream model"))
	}
	plan, err := planSTT(req.Audio, req.Format)
	if err != nil {
		return nil, err
	}
	lang := language(req.Language)
	if plan.sync {
		return p.recognize(ctx, plan, lang)
	}
	return p.recognizeAsync(ctx, plan, lang)
}

// sttV1URL is v1's recognition URL of the plan.
func sttV1URL(root string, plan sttPlan, lang, folder string) string {
	u := root + sttV1Path + "?topic=general&lang=" + url.QueryEscape(lang) + "&format=" + plan.format
	if plan.format == "lpcm" {
		u += "&sampleRateHertz=" + strconv.Itoa(plan.rate)
	}
	return u + "&folderId=" + url.QueryEscape(folder)
}

// recognize is API v1's synchronous recognition.
func (p *Provider) recognize(ctx context.Context, plan sttPlan, lang string) (*shlyuz.Transcription, error) {
	h := p.header.Clone()
	h.Set("Content-Type", "application/octet-stream")
	var reply http.Header
	data, err := p.send(ctx, sttV1URL(p.stt, plan, lang, p.cfg.FolderID), h, plan.audio, &reply)
	if err != nil {
		return nil, err
	}
	return decodeRecognize(data, reply.Get("YaCloud-Billing-Units"), lang)
}

// decodeRecognize reads v1's reply {"result":"…"} and its billed seconds.
func decodeRecognize(data []byte, units, lang string) (*shlyuz.Transcription, error) {
	var r struct {
		Result *string `json:"result"`
	}
	if json.Unmarshal(data, &r) != nil || r.Result == nil {
		return nil, upstream.Malformed("the reply is not a recognition: " + strconv.Quote(upstream.Clip(string(data))))
	}
	out := &shlyuz.Transcription{Text: *r.Result, Language: lang}
	if n, err := strconv.ParseInt(strings.TrimSpace(units), 10, 64); err == nil && n >= 0 {
		secs := shlyuz.NewDecimalFrac(n, 1)
		out.Usage = &shlyuz.AudioUsage{Seconds: &secs}
	}
	return out, nil
}

// sttV3Request is API v3's recognizeFileAsync body.
type sttV3Request struct {
	Content          string `json:"content"`
	RecognitionModel struct {
		Model       string `json:"model"`
		AudioFormat struct {
			ContainerAudio struct {
				ContainerAudioType string `json:"containerAudioType"`
			} `json:"containerAudio"`
		} `json:"audioFormat"`
		TextNormalization struct {
			TextNormalization string `json:"textNormalization"`
			ProfanityFilter   bool   `json:"profanityFilter"`
			LiteratureText    bool   `json:"literatureText"`
		} `json:"textNormalization"`
		LanguageRestriction struct {
			RestrictionType string   `json:"restrictionType"`
			LanguageCode    []string `json:"languageCode"`
		} `json:"languageRestriction"`
	} `json:"recognitionModel"`
}

func sttV3Body(plan sttPlan, lang string) []byte {
	var r sttV3Request
	r.Content = base64.StdEncoding.EncodeToString(plan.audio)
	m := &r.RecognitionModel
	m.Model = "general"
	m.AudioFormat.ContainerAudio.ContainerAudioType = plan.format
	m.TextNormalization.TextNormalization = "TEXT_NORMALIZATION_ENABLED"
	m.LanguageRestriction.RestrictionType = "WHITELIST"
	m.LanguageRestriction.LanguageCode = []string{lang}
	b, _ := json.Marshal(r)
	return b
}

// recognizeAsync is API v3's asynchronous recognition, awaited.
func (p *Provider) recognizeAsync(ctx context.Context, plan sttPlan, lang string) (*shlyuz.Transcription, error) {
	var op operation
	if err := p.callJSON(ctx, p.stt+sttV3Path, sttV3Body(plan, lang), &op); err != nil {
		return nil, err
	}
	if err := p.await(ctx, p.ops, "recognition", &op); err != nil {
		return nil, err
	}
	data, err := p.send(ctx, p.stt+sttResultPath+"?operationId="+url.QueryEscape(op.ID), p.header, nil, nil)
	if err != nil {
		return nil, err
	}
	return p.decodeRecognition(data, lang)
}

// sttEvent is one of getRecognition's events.
type sttEvent struct {
	Result *struct {
		ChannelTag string        `json:"channelTag"`
		Final      *sttUtterance `json:"final"`
		Refinement *struct {
			FinalIndex     json.RawMessage `json:"finalIndex"`
			NormalizedText *sttUtterance   `json:"normalizedText"`
		} `json:"finalRefinement"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

type sttUtterance struct {
	Alternatives []struct {
		Text        string          `json:"text"`
		StartTimeMs json.RawMessage `json:"startTimeMs"`
		EndTimeMs   json.RawMessage `json:"endTimeMs"`
	} `json:"alternatives"`
}

// decodeRecognition joins the final utterances of getRecognition's events
// (JSON objects one after another), each in its normalized text when a
// refinement gave one, channel after channel.
func (p *Provider) decodeRecognition(data []byte, lang string) (*shlyuz.Transcription, error) {
	segs := map[string][]shlyuz.TranscriptSegment{}
	var channels []string
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var ev sttEvent
		if err := dec.Decode(&ev); err == io.EOF {
			break
		} else if err != nil {
			return nil, upstream.Malformed("the recognition is not JSON events: " + strconv.Quote(upstream.Clip(string(data))))
		}
		if len(ev.Error) > 0 && string(ev.Error) != "null" {
			return nil, streamError(p.cfg.Name, ev.Error, false, p.now())
		}
		r := ev.Result
		if r == nil {
			continue
		}
		ch := r.ChannelTag
		if r.Final != nil && len(r.Final.Alternatives) > 0 {
			a := r.Final.Alternatives[0]
			if _, seen := segs[ch]; !seen {
				channels = append(channels, ch)
			}
			segs[ch] = append(segs[ch], shlyuz.TranscriptSegment{Start: millis(a.StartTimeMs), End: millis(a.EndTimeMs), Text: a.Text})
		}
		if f := r.Refinement; f != nil && f.NormalizedText != nil && len(f.NormalizedText.Alternatives) > 0 {
			i, err := strconv.Atoi(upstream.JSONText(f.FinalIndex))
			if err == nil && i >= 0 && i < len(segs[ch]) {
				segs[ch][i].Text = f.NormalizedText.Alternatives[0].Text
			}
		}
	}
	out := &shlyuz.Transcription{Language: lang}
	var texts []string
	for _, ch := range channels {
		for _, s := range segs[ch] {
			if s.Text = strings.TrimSpace(s.Text); s.Text != "" {
				texts = append(texts, s.Text)
				out.Segments = append(out.Segments, s)
			}
			out.Duration = max(out.Duration, s.End)
		}
	}
	out.Text = strings.Join(texts, " ")
	return out, nil
}

// millis reads a time in milliseconds (a JSON string or number) as seconds.
func millis(v json.RawMessage) float64 {
	ms, _ := strconv.ParseFloat(upstream.JSONText(v), 64)
	return ms / 1000
}
