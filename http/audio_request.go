package http

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
)

// audioData is API.md's {"data": "<base64>", "format"} (OpenRouter's
// input_audio has the same shape).
type audioData struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

// transcriptionInput is a transcription request, from JSON or OpenAI's
// multipart form.
type transcriptionInput struct {
	Model          string         `json:"model"`
	Audio          *audioData     `json:"audio"`
	InputAudio     *audioData     `json:"input_audio"`
	Language       string         `json:"language"`
	Prompt         string         `json:"prompt"`
	Temperature    *float64       `json:"temperature"`
	ResponseFormat string         `json:"response_format"`
	Stream         bool           `json:"stream"`
	Provider       *providerPrefs `json:"provider"`

	audio  []byte
	format string
	param  string // where the audio came from: "file" or "audio"
	// seconds is the audio's duration, read from its container, or an upper
	// bound from its size capped at the model's limit (what is reserved and,
	// when the upstream reports nothing, billed).
	seconds shlyuz.Decimal
}

// audioFormats are the containers a transcription may name.
var audioFormats = []string{"flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "opus", "wav", "webm", "aac"}

// parseTranscription reads a transcription request: its model, its audio
// decoded and checked against the model's formats, size and duration, all
// before anything is reserved.
func parseTranscription(c *fiber.Ctx, cat *shlyuz.Catalog) (*transcriptionInput, *shlyuz.PricedModel, *shlyuz.Error) {
	in, e := readTranscription(c)
	if e != nil {
		return nil, nil, e
	}
	if in.Stream {
		return nil, nil, shlyuz.ErrStreamNotSupported("Transcription")
	}
	if in.Model == "" {
		return nil, nil, shlyuz.ErrMissingField("model")
	}
	m, ok := cat.Get(in.Model)
	if !ok {
		return nil, nil, cat.Missing(in.Model)
	}
	spec := m.Transcription
	if spec == nil {
		return nil, nil, shlyuz.ErrInvalidValue("model", "The model %q does not transcribe audio; GET /api/v1/models?output_modalities=transcription lists those that do.", in.Model)
	}
	if in.ResponseFormat == "" {
		in.ResponseFormat = "json"
	}
	if !slices.Contains(spec.ResponseFormats, in.ResponseFormat) {
		return nil, nil, shlyuz.ErrUnsupportedFormat("response_format", "The model %q answers in %s, not %q.", m.ID, joinList(spec.ResponseFormats), in.ResponseFormat)
	}
	if t := in.Temperature; t != nil && (*t < 0 || *t > 1) {
		return nil, nil, shlyuz.ErrInvalidValue("temperature", "temperature is between 0 and 1, not %v.", *t)
	}
	return in, m, checkAudio(in, m)
}

// checkAudio checks the audio against the model: not empty, a format it
// reads, its content that format, within its size and duration.
func checkAudio(in *transcriptionInput, m *shlyuz.PricedModel) *shlyuz.Error {
	spec := m.Transcription
	sniffed := media.SniffAudio(in.audio)
	switch {
	case len(in.audio) == 0:
		return shlyuz.ErrInvalidValue(in.param, "The audio is empty.")
	case int64(len(in.audio)) > spec.MaxBytes:
		return shlyuz.ErrMediaTooLarge(in.param, int64(len(in.audio)), spec.MaxBytes)
	case in.format == "":
		in.format = sniffed
		if in.format == "" {
			return shlyuz.ErrUnsupportedFormat(in.param, "The audio's format could not be recognized; the model %q reads %s.", m.ID, joinList(spec.Formats))
		}
	case !slices.Contains(audioFormats, in.format):
		return shlyuz.ErrUnsupportedFormat(in.param, "Unknown audio format %q; the model %q reads %s.", in.format, m.ID, joinList(spec.Formats))
	case !media.AudioFormatMatches(in.format, sniffed):
		return shlyuz.ErrInvalidValue(in.param, "The audio was declared %s but its content is %s.", in.format, orUnknown(sniffed))
	}
	in.format = sniffed // one name per container from here on
	if !slices.ContainsFunc(spec.Formats, func(f string) bool { return media.AudioFormatMatches(f, sniffed) }) {
		return shlyuz.ErrUnsupportedFormat(in.param, "The model %q reads %s, not %s.", m.ID, joinList(spec.Formats), in.format)
	}
	secs, measured := media.AudioSeconds(in.format, in.audio)
	if !measured && media.AudioWalked(in.format) {
		return shlyuz.ErrInvalidValue(in.param, "The %s audio holds no frames a decoder could play, or a codec the gateway cannot measure; send PCM WAV, MP3, Ogg Opus or Vorbis, or FLAC.", in.format)
	}
	if limit := spec.MaxSeconds; limit > 0 && secs.Ceil() > limit {
		if measured { // the most any decoder plays: the upstream may play this long
			return shlyuz.ErrTooLong(in.param, secs.Ceil(), limit)
		}
		// m4a, webm, aac: the size's estimate is no bound; the upstream's own
		// measure is charged in full even past the hold (docs/billing.md).
		secs = shlyuz.NewDecimalFrac(limit, 1)
	}
	in.seconds = secs
	return nil
}

// readTranscription reads the request as OpenAI's multipart form or as JSON.
func readTranscription(c *fiber.Ctx) (*transcriptionInput, *shlyuz.Error) {
	if strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEMultipartForm) {
		return readTranscriptionForm(c)
	}
	var in transcriptionInput
	if err := json.NewDecoder(bytes.NewReader(c.Body())).Decode(&in); err != nil {
		return nil, decodeError(err)
	}
	a, param := in.Audio, "audio"
	if a == nil {
		a, param = in.InputAudio, "input_audio"
	}
	if a == nil {
		return nil, shlyuz.ErrMissingField("audio")
	}
	in.param = param + ".data"
	data, _, ok := base64Payload(a.Data) // raw base64 or a data: URL
	audio, err := base64.StdEncoding.DecodeString(data)
	if !ok || err != nil {
		return nil, shlyuz.ErrInvalidBase64(in.param)
	}
	in.audio, in.format = audio, strings.ToLower(a.Format)
	return &in, nil
}

func readTranscriptionForm(c *fiber.Ctx) (*transcriptionInput, *shlyuz.Error) {
	form, err := c.MultipartForm()
	if err != nil {
		return nil, shlyuz.ErrInvalidValue("file", "The multipart form could not be read: %v", err)
	}
	value := func(k string) string {
		if v := form.Value[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	in := &transcriptionInput{Model: value("model"), Language: value("language"), Prompt: value("prompt"),
		ResponseFormat: value("response_format"), param: "file"}
	if v := value("temperature"); v != "" {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, shlyuz.ErrInvalidValue("temperature", "temperature is a number, not %q.", v)
		}
		in.Temperature = &t
	}
	if v := value("stream"); v != "" {
		in.Stream, _ = strconv.ParseBool(v)
	}
	files := form.File["file"]
	if len(files) == 0 {
		return nil, shlyuz.ErrMissingField("file")
	}
	f, err := files[0].Open()
	if err != nil {
		return nil, shlyuz.ErrInvalidValue("file", "The file could not be read.")
	}
	defer f.Close()
	if in.audio, err = io.ReadAll(f); err != nil {
		return nil, shlyuz.ErrInvalidValue("file", "The file could not be read.")
	}
	in.format = strings.ToLower(strings.TrimPrefix(path.Ext(files[0].Filename), "."))
	return in, nil
}

// speechInput is OpenAI's speech request.
type speechInput struct {
	Model          string         `json:"model"`
	Input          string         `json:"input"`
	Voice          string         `json:"voice"`
	ResponseFormat string         `json:"response_format"`
	Speed          *float64       `json:"speed"`
	Instructions   string         `json:"instructions"`
	StreamFormat   string         `json:"stream_format"`
	Provider       *providerPrefs `json:"provider"`
}

// parseSpeech reads a speech request and checks it against the model.
func parseSpeech(body []byte, cat *shlyuz.Catalog) (*speechInput, *shlyuz.PricedModel, *shlyuz.Error) {
	var in speechInput
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&in); err != nil {
		return nil, nil, decodeError(err)
	}
	if in.Model == "" {
		return nil, nil, shlyuz.ErrMissingField("model")
	}
	m, ok := cat.Get(in.Model)
	if !ok {
		return nil, nil, cat.Missing(in.Model)
	}
	spec := m.Speech
	if spec == nil {
		return nil, nil, shlyuz.ErrInvalidValue("model", "The model %q does not speak; GET /api/v1/models?output_modalities=speech lists those that do.", in.Model)
	}
	if in.Voice == "" {
		in.Voice = spec.DefaultVoice
	}
	if in.ResponseFormat == "" {
		in.ResponseFormat = spec.DefaultFormat
	}
	switch {
	case in.StreamFormat != "" && in.StreamFormat != "audio":
		return nil, nil, shlyuz.ErrInvalidValue("stream_format", "The speech is streamed as raw audio (stream_format \"audio\"), not %q.", in.StreamFormat)
	case in.Speed != nil && (*in.Speed < 0.25 || *in.Speed > 4):
		return nil, nil, shlyuz.ErrInvalidValue("speed", "speed is between 0.25 and 4.0, not %v.", *in.Speed)
	}
	if e := spec.Check(m.ID, in.Input, in.Voice, in.ResponseFormat); e != nil {
		return nil, nil, e
	}
	return &in, m, nil
}

func joinList(vs []string) string { return strings.Join(vs, ", ") }

func orUnknown(s string) string {
	if s == "" {
		return "not audio the gateway recognizes"
	}
	return s
}
