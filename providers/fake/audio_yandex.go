package fake

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
)

// Yandex SpeechKit, under the fake's root as the adapter sends it when its
// base URL is not Yandex Cloud's:
//
//   - POST /speech/v1/stt:recognize (v1, synchronous): the raw body must be
//     what format says (headerless 16-bit PCM at 8, 16 or 48 kHz for lpcm,
//     Ogg Opus for oggopus), at most 1 MB and 30 s, else a 400 in v1's
//     {"error_code","error_message"}. The reply is {"result":
//     Transcript(seconds)} with YaCloud-Billing-Units, the seconds in
//     whole 15-second blocks.
//   - POST /stt/v3/recognizeFileAsync (v3): base64 content in the declared
//     container (WAV, OGG_OPUS, MP3) or raw LINEAR16_PCM; an operation
//     "yastt-<n>" done on its second GET /operations/yastt-<n>; then GET
//     /stt/v3/getRecognition?operationId= answers newline-delimited events:
//     per 10 s of audio a partial, a final (lower case) and a
//     finalRefinement whose normalized texts join to
//     Transcript(seconds).
//   - POST /speech/v1/tts:synthesize (v1, a form) answers the audio itself,
//     chunked (format mp3, oggopus or lpcm at sampleRateHertz); POST
//     /tts/v3/utteranceSynthesis (v3, JSON) answers newline-delimited
//     {"result":{"audioChunk":{"data":"<base64>"},…}}. Speech lasts
//     SpeechSeconds(text), in chunks of speechKitChunk bytes, each
//     flushed, with a short pause after it.
//
// Faults: an X-Fake-Fault header with an HTTP status (before any byte), on
// every endpoint, or "fault-<status>" as the language of a recognition;
// X-Fake-Fault "failed" fails a v3 recognition's operation. In the text
// of speech: [fail-before] (500 before any byte), [fail-after] (after the
// first chunk v1 drops the connection, v3 sends an error object), [slow]
// (SpeechKitSlowPause after each chunk); X-Fake-Fault "cut" and "slow" do
// the same as the last two.

// SpeechKitSlowPause is the pause after each chunk of [slow] speech.
const SpeechKitSlowPause = 100 * time.Millisecond

const (
	speechKitChunk = 4096                 // bytes of audio a chunk
	speechKitPause = 2 * time.Millisecond // after each chunk
	speechKitV3WAV = 22050                // the rate of v3's WAV
)

// speechKitVoices are the voices the fake speaks with.
var speechKitVoices = []string{"alena", "filipp", "ermil", "jane", "madirus", "omazh", "zahar", "dasha", "julia",
	"lera", "masha", "marina", "alexander", "kirill", "anton", "john", "lea", "naomi", "madi", "amira", "nigora"}

// SpeechKitBilledSeconds is v1's YaCloud-Billing-Units for audio lasting
// seconds: whole 15-second blocks.
func SpeechKitBilledSeconds(seconds shlyuz.Decimal) int64 {
	return max(1, (seconds.Ceil()+14)/15) * 15
}

func (s *Server) speechKit(w http.ResponseWriter, r *http.Request) {
	if !s.yandexAuthorized(w, r) {
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.Remember(r, body)
	p := r.URL.Path
	v1 := strings.Contains(p, "/speech/v1/")
	if st, _ := StatusOf(r.Header.Get(FaultHeader)); st != 0 {
		writeSpeechKitError(w, v1, st, http.StatusText(st))
		return
	}
	switch {
	case strings.HasSuffix(p, "/speech/v1/stt:recognize"):
		s.sttV1(w, r, body)
	case strings.HasSuffix(p, "/stt/v3/recognizeFileAsync"):
		s.sttV3(w, r, body)
	case strings.Contains(p, "/operations/yastt-"):
		s.sttOperation(w, r)
	case strings.HasSuffix(p, "/stt/v3/getRecognition"):
		s.sttResult(w, r)
	case strings.HasSuffix(p, "/speech/v1/tts:synthesize"):
		s.ttsV1(w, r, body)
	case strings.HasSuffix(p, "/tts/v3/utteranceSynthesis"):
		s.ttsV3(w, r, body)
	default:
		writeYandexError(w, http.StatusNotFound, "Unknown SpeechKit method "+p)
	}
}

// writeSpeechKitError answers v1's error body or v3's grpc-gateway one.
func writeSpeechKitError(w http.ResponseWriter, v1 bool, status int, msg string) {
	if !v1 {
		writeYandexError(w, status, msg)
		return
	}
	code := map[int]string{400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 429: "TOO_MANY_REQUESTS"}[status]
	if code == "" {
		code = "INTERNAL_ERROR"
	}
	writeJSONStatus(w, status, map[string]string{"error_code": code, "error_message": msg})
}

func (s *Server) sttV1(w http.ResponseWriter, r *http.Request, body []byte) {
	q := r.URL.Query()
	if st, _ := StatusOf(faultFromModel(q.Get("lang"))); st != 0 {
		writeSpeechKitError(w, true, st, http.StatusText(st))
		return
	}
	var secs shlyuz.Decimal
	switch q.Get("format") {
	case "lpcm":
		rate, _ := strconv.Atoi(q.Get("sampleRateHertz"))
		switch {
		case rate != 8000 && rate != 16000 && rate != 48000:
			writeSpeechKitError(w, true, 400, "sampleRateHertz must be 8000, 16000 or 48000 for lpcm")
			return
		case len(body) == 0 || len(body)%2 != 0 || media.SniffAudio(body) != "":
			writeSpeechKitError(w, true, 400, "audio is not raw LPCM: 16-bit samples without a header are expected")
			return
		}
		secs = shlyuz.NewDecimalFrac(int64(len(body)/2), int64(rate))
	case "oggopus":
		d, exact := media.AudioSeconds("ogg", body)
		if media.SniffAudio(body) != "ogg" || !strings.Contains(string(body[:min(len(body), 512)]), "OpusHead") || !exact {
			writeSpeechKitError(w, true, 400, "audio is not Ogg Opus")
			return
		}
		secs = d
	default:
		writeSpeechKitError(w, true, 400, "format must be lpcm or oggopus")
		return
	}
	switch {
	case len(body) > 1<<20:
		writeSpeechKitError(w, true, 400, "audio should be less than 1MB")
		return
	case secs.Cmp(shlyuz.NewDecimalFrac(30, 1)) > 0:
		writeSpeechKitError(w, true, 400, "audio duration should be less than 30s")
		return
	}
	w.Header().Set("YaCloud-Billing-Units", strconv.FormatInt(SpeechKitBilledSeconds(secs), 10))
	writeJSON(w, map[string]string{"result": Transcript(secs.Float64())})
}

var (
	sttOps sync.Map // id → *sttOp
	sttSeq atomic.Int64
)

type sttOp struct {
	polls   atomic.Int32
	failed  bool
	seconds float64
}

func (op *sttOp) done() bool { return op.polls.Load() >= 2 }

// speechKitAudioSpec is v3's audio format, of recognition and synthesis
// alike: a container, or raw PCM at a rate.
type speechKitAudioSpec struct {
	ContainerAudio *struct {
		ContainerAudioType string `json:"containerAudioType"`
	} `json:"containerAudio"`
	RawAudio *struct {
		AudioEncoding   string `json:"audioEncoding"`
		SampleRateHertz string `json:"sampleRateHertz"`
	} `json:"rawAudio"`
}

func (s *Server) sttV3(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		Content          string `json:"content"`
		RecognitionModel struct {
			Model               string             `json:"model"`
			AudioFormat         speechKitAudioSpec `json:"audioFormat"`
			LanguageRestriction struct {
				LanguageCode []string `json:"languageCode"`
			} `json:"languageRestriction"`
		} `json:"recognitionModel"`
	}
	if json.Unmarshal(body, &req) != nil {
		writeYandexError(w, 400, "the body is not a RecognizeFileRequest")
		return
	}
	if st, _ := StatusOf(faultFromModel(strings.Join(req.RecognitionModel.LanguageRestriction.LanguageCode, ","))); st != 0 {
		writeYandexError(w, st, http.StatusText(st))
		return
	}
	audio, err := base64.StdEncoding.DecodeString(req.Content)
	if err != nil || len(audio) == 0 {
		writeYandexError(w, 400, "content must be base64 audio")
		return
	}
	var secs shlyuz.Decimal
	exact := false
	switch f := req.RecognitionModel.AudioFormat; {
	case f.ContainerAudio != nil:
		kind := map[string]string{"WAV": "wav", "OGG_OPUS": "ogg", "MP3": "mp3"}[f.ContainerAudio.ContainerAudioType]
		if kind != "" && media.SniffAudio(audio) == kind {
			secs, exact = media.AudioSeconds(kind, audio)
		}
	case f.RawAudio != nil && f.RawAudio.AudioEncoding == "LINEAR16_PCM":
		if rate, _ := strconv.Atoi(f.RawAudio.SampleRateHertz); rate > 0 && media.SniffAudio(audio) == "" {
			secs, exact = shlyuz.NewDecimalFrac(int64(len(audio)/2), int64(rate)), true
		}
	}
	if !exact {
		writeYandexError(w, 400, "the audio is not in the declared audioFormat")
		return
	}
	id := "yastt-" + strconv.FormatInt(sttSeq.Add(1), 10)
	sttOps.Store(id, &sttOp{failed: r.Header.Get(FaultHeader) == "failed", seconds: secs.Float64()})
	writeJSON(w, map[string]any{"id": id, "description": "STT async recognize", "createdAt": time.Now().UTC().Format(time.RFC3339), "done": false})
}

func (s *Server) sttOperation(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	v, ok := sttOps.Load(id)
	if !ok || r.Method != http.MethodGet {
		writeYandexError(w, http.StatusNotFound, "Operation not found")
		return
	}
	op := v.(*sttOp)
	op.polls.Add(1)
	out := map[string]any{"id": id, "description": "STT async recognize", "done": op.done()}
	switch {
	case op.done() && op.failed:
		out["error"] = map[string]any{"code": 13, "message": "Internal error", "details": []any{}}
	case op.done():
		out["response"] = map[string]any{"@type": "type.googleapis.com/google.protobuf.Empty"}
	}
	writeJSON(w, out)
}

func (s *Server) sttResult(w http.ResponseWriter, r *http.Request) {
	v, ok := sttOps.Load(r.URL.Query().Get("operationId"))
	if !ok {
		writeYandexError(w, http.StatusNotFound, "Operation not found")
		return
	}
	op := v.(*sttOp)
	if !op.done() || op.failed {
		writeYandexError(w, http.StatusNotFound, "The operation has no result")
		return
	}
	// The transcript's words spread over 10-second utterances.
	words := strings.Fields(Transcript(op.seconds))
	n := min(len(words), max(1, int(math.Ceil(op.seconds/10))))
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	for i := range n {
		start, end := int64(i)*10000, min(int64(i+1)*10000, int64(op.seconds*1000))
		text := strings.Join(words[i*len(words)/n:(i+1)*len(words)/n], " ")
		alt := func(t string) map[string]any {
			return map[string]any{"alternatives": []any{map[string]any{"words": []any{}, "text": t,
				"startTimeMs": strconv.FormatInt(start, 10), "endTimeMs": strconv.FormatInt(end, 10), "confidence": 0}}, "channelTag": "0"}
		}
		lower := strings.ToLower(strings.Trim(text, "."))
		for _, ev := range []map[string]any{
			{"partial": alt(lower[:len(lower)/2])},
			{"final": alt(lower)},
			{"finalRefinement": map[string]any{"finalIndex": strconv.Itoa(i), "normalizedText": alt(text)}},
		} {
			ev["sessionUuid"] = map[string]string{"uuid": "fake-session", "userRequestId": ""}
			ev["channelTag"] = "0"
			_ = enc.Encode(map[string]any{"result": ev})
		}
	}
}

// speechFault is what a speech request's text or X-Fake-Fault asks of it.
type speechFault struct{ before, after, slow bool }

func speechFaultOf(r *http.Request, text string) speechFault {
	h := r.Header.Get(FaultHeader)
	return speechFault{before: strings.Contains(text, MarkerFailBefore), after: strings.Contains(text, MarkerFailAfter) || h == FaultCut,
		slow: strings.Contains(text, MarkerSlow) || h == FaultSlow}
}

func (s *Server) ttsV1(w http.ResponseWriter, r *http.Request, body []byte) {
	f, err := url.ParseQuery(string(body))
	text, voice, format := f.Get("text"), f.Get("voice"), f.Get("format")
	if format == "" {
		format = "oggopus"
	}
	rate := 48000
	if v := f.Get("sampleRateHertz"); v != "" {
		rate, _ = strconv.Atoi(v)
	}
	speed, serr := strconv.ParseFloat(f.Get("speed"), 64)
	switch {
	case err != nil || text == "":
		writeSpeechKitError(w, true, 400, "text is required")
		return
	case utf8.RuneCountInString(text) > 5000:
		writeSpeechKitError(w, true, 400, "Too long text")
		return
	case voice != "" && !slices.Contains(speechKitVoices, voice):
		writeSpeechKitError(w, true, 400, "Unsupported voice: "+voice)
		return
	case format == "lpcm" && rate != 8000 && rate != 16000 && rate != 48000:
		writeSpeechKitError(w, true, 400, "sampleRateHertz must be 8000, 16000 or 48000")
		return
	case f.Has("speed") && (serr != nil || speed < 0.1 || speed > 3):
		writeSpeechKitError(w, true, 400, "speed must be from 0.1 to 3.0")
		return
	}
	var audio []byte
	secs := SpeechSeconds(text)
	switch format {
	case "mp3":
		audio = mediatest.MP3(secs)
	case "oggopus":
		audio = mediatest.OggOpus(secs)
	case "lpcm":
		audio = mediatest.PCM(secs, rate)
	default:
		writeSpeechKitError(w, true, 400, "format must be lpcm, oggopus or mp3")
		return
	}
	fault := speechFaultOf(r, text)
	if fault.before {
		writeSpeechKitError(w, true, 500, "Internal error")
		return
	}
	w.Header().Set("Content-Type", "audio/"+map[string]string{"mp3": "mpeg", "oggopus": "ogg", "lpcm": "x-pcm"}[format])
	s.streamChunks(w, r, fault, audio, func(chunk []byte, _ int) []byte { return chunk }, nil)
}

func (s *Server) ttsV3(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		Text            string                       `json:"text"`
		Hints           []map[string]json.RawMessage `json:"hints"`
		OutputAudioSpec speechKitAudioSpec           `json:"outputAudioSpec"`
		UnsafeMode      bool                         `json:"unsafeMode"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Text == "" {
		writeYandexError(w, 400, "text is required")
		return
	}
	for _, h := range req.Hints {
		var voice string
		if len(h) != 1 {
			writeYandexError(w, 400, "each hint must hold exactly one field")
			return
		}
		if v, ok := h["voice"]; ok && (json.Unmarshal(v, &voice) != nil || !slices.Contains(speechKitVoices, voice)) {
			writeYandexError(w, 400, "Unsupported voice "+string(v))
			return
		}
	}
	if n := utf8.RuneCountInString(req.Text); n > 5000 || n > 250 && !req.UnsafeMode {
		writeYandexError(w, 400, "Too long text: "+strconv.Itoa(n)+" characters")
		return
	}
	var audio []byte
	secs := SpeechSeconds(req.Text)
	switch spec := req.OutputAudioSpec; {
	case spec.ContainerAudio != nil && spec.RawAudio == nil:
		switch spec.ContainerAudio.ContainerAudioType {
		case "MP3":
			audio = mediatest.MP3(secs)
		case "OGG_OPUS":
			audio = mediatest.OggOpus(secs)
		case "WAV":
			audio = mediatest.WAV(secs, speechKitV3WAV)
		}
	case spec.RawAudio != nil && spec.ContainerAudio == nil && spec.RawAudio.AudioEncoding == "LINEAR16_PCM":
		if rate, _ := strconv.Atoi(spec.RawAudio.SampleRateHertz); rate > 0 {
			audio = mediatest.PCM(secs, rate)
		}
	}
	if audio == nil {
		writeYandexError(w, 400, "outputAudioSpec must be one containerAudio (MP3, WAV, OGG_OPUS) or rawAudio LINEAR16_PCM")
		return
	}
	fault := speechFaultOf(r, req.Text)
	if fault.before {
		writeYandexError(w, 500, "Internal error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	ms := int64(secs * 1000)
	line := func(chunk []byte, i int) []byte {
		res := map[string]any{"audioChunk": map[string]any{"data": chunk}, "startMs": "0", "lengthMs": strconv.FormatInt(ms, 10)}
		if i == 0 {
			res["textChunk"] = map[string]any{"text": req.Text}
		}
		b, _ := json.Marshal(map[string]any{"result": res})
		return append(b, '\n')
	}
	s.streamChunks(w, r, fault, audio, line, append(appendYandexError(nil, 500, "Internal error"), '\n'))
}

// streamChunks writes audio in chunks, each framed by frame and flushed,
// with a pause after it, until the client leaves. With fault.after, the
// first chunk and its pause are followed by failure (or, when it is nil, a
// dropped connection).
func (s *Server) streamChunks(w http.ResponseWriter, r *http.Request, fault speechFault, audio []byte,
	frame func(chunk []byte, i int) []byte, failure []byte) {
	pause := speechKitPause
	if fault.slow {
		pause = SpeechKitSlowPause
	}
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for i := 0; i*speechKitChunk < len(audio); i++ {
		if _, err := w.Write(frame(audio[i*speechKitChunk:min(len(audio), (i+1)*speechKitChunk)], i)); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		if !s.wait(r.Context(), pause) {
			return
		}
		if fault.after {
			if failure == nil {
				Abort()
			}
			_, _ = w.Write(failure)
			return
		}
	}
}
