package fake

import (
	"bytes"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz/media"
)

// Sber's SaluteSpeech REST API, served under /salute/ (research/media-upstreams.md §3.3, §4.3):
//
//	POST /salute/api/v2/oauth                  the OAuth endpoint, as GigaChat's, for SALUTE_SPEECH_* scopes
//	POST /salute/rest/v1/speech:recognize      synchronous recognition: the raw audio, its Content-Type
//	POST /salute/rest/v1/text:synthesize       synthesis: application/text in, audio streamed out
//
// Recognition checks that the body is what its Content-Type says
// (audio/x-pcm;bit=16;rate=N headerless samples, audio/ogg;codecs=opus,
// audio/mpeg, audio/flac), at most 2 MB and a minute, and answers
// {"result":[…],"emotions":[…],"status":200}, the phrases of Transcript(duration).
// Synthesis (format opus, wav16 or pcm16; a *_24000 voice) speaks
// Speech(text, format), streamed chunked: Ogg pages (the
// first chunk the headers and the first second), or half a second of
// samples a chunk, SaluteChunkDelay apart. Faults: the X-Fake-Fault header,
// fault-<name> as the model, or a marker in the text (MarkerFailBefore,
// MarkerFailAfter, MarkerSlow). Errors are {"status":N,"message":"…"}.
const (
	saluteOAuthPath      = "/salute/api/v2/oauth"
	saluteRecognizePath  = "/salute/rest/v1/speech:recognize"
	saluteSynthesizePath = "/salute/rest/v1/text:synthesize"
)

// SaluteChunkDelay is the pause between two chunks of synthesized audio.
const SaluteChunkDelay = 10 * time.Millisecond

// The limits of synchronous recognition and of synthesis.
const (
	saluteMaxBytes   = 2 << 20
	saluteMaxSeconds = 60
	saluteMaxChars   = 4000
)

// saluteVoices are SaluteSpeech's voices, without their rate suffix.
var saluteVoices = []string{"May", "Nec", "Bys", "Tur", "Ost", "Pon", "Kin"}

// SaluteTokensIssued is how many tokens the SaluteSpeech OAuth endpoint issued.
func (s *Server) SaluteTokensIssued() int64 { return s.giga().saluteIssued.Load() }

// salute answers SaluteSpeech's REST API.
func (s *Server) salute(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeGigaError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	switch r.URL.Path {
	case saluteOAuthPath:
		s.gigaOAuth(w, r)
	case saluteRecognizePath:
		if s.sberAuthorized(w, r, "SALUTE_SPEECH_") {
			s.saluteRecognize(w, r)
		}
	case saluteSynthesizePath:
		if s.sberAuthorized(w, r, "SALUTE_SPEECH_") {
			s.saluteSynthesize(w, r)
		}
	default:
		writeGigaError(w, http.StatusNotFound, "Not Found")
	}
}

// saluteBegin applies the fault's delay and answers a failing one; false
// when the request is over.
func (s *Server) saluteBegin(w http.ResponseWriter, r *http.Request, fault string) bool {
	if !s.Begin(r.Context(), fault) {
		return false
	}
	if status, quota := StatusOf(fault); status != 0 {
		writeGigaStatusFault(w, status, quota)
		return false
	}
	return true
}

// saluteSeconds is the duration of the body the Content-Type describes, or
// the 400 message when the body is not that.
func saluteSeconds(contentType string, body []byte) (float64, string) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0, "Invalid Content-Type"
	}
	sniffed := media.SniffAudio(body)
	mismatch := "Audio content does not match Content-Type " + mt
	switch mt {
	case "audio/x-pcm", "audio/alaw", "audio/mulaw":
		rate, err := strconv.Atoi(params["rate"])
		if err != nil || rate < 8000 || rate > 96000 {
			return 0, "Invalid sample rate for " + mt
		}
		width := 1
		if mt == "audio/x-pcm" {
			if params["bit"] != "16" {
				return 0, "Only 16-bit PCM is supported"
			}
			width = 2
		}
		if sniffed != "" || len(body)%width != 0 {
			return 0, mismatch
		}
		return float64(len(body)) / float64(width*rate), ""
	case "audio/ogg":
		if params["codecs"] != "opus" || sniffed != "ogg" || !strings.Contains(string(body[:min(len(body), 512)]), "OpusHead") {
			return 0, mismatch
		}
	case "audio/mpeg":
		if sniffed != "mp3" {
			return 0, mismatch
		}
	case "audio/flac":
		if sniffed != "flac" {
			return 0, mismatch
		}
	default:
		return 0, "Unsupported audio format " + mt
	}
	d, exact := DecodedSeconds(sniffed, body)
	if !exact {
		return 0, mismatch
	}
	return d, ""
}

// saluteRecognize answers speech:recognize.
func (s *Server) saluteRecognize(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(r)
	if !ok {
		return
	}
	fault := audioFault(r, r.URL.Query().Get("model"), "")
	if !s.saluteBegin(w, r, fault) {
		return
	}
	switch lang := r.URL.Query().Get("language"); lang {
	case "", "ru-RU", "en-US", "kk-KZ":
	default:
		writeGigaError(w, http.StatusBadRequest, "Unsupported language "+lang)
		return
	}
	if len(body) == 0 {
		writeGigaError(w, http.StatusBadRequest, "Empty audio")
		return
	}
	if len(body) > saluteMaxBytes {
		writeGigaError(w, http.StatusRequestEntityTooLarge, "Payload too large: synchronous recognition takes at most 2 MB")
		return
	}
	secs, msg := saluteSeconds(r.Header.Get("Content-Type"), body)
	switch {
	case msg != "":
		writeGigaError(w, http.StatusBadRequest, msg)
		return
	case secs > saluteMaxSeconds:
		writeGigaError(w, http.StatusBadRequest, "Audio is longer than 1 minute; use async recognition")
		return
	}
	b := []byte(`{"result":[`)
	for i, p := range transcriptPhrases(secs) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, p)
	}
	b = append(b, `],"emotions":[{"negative":0.01,"neutral":0.98,"positive":0.01}],"person_identity":{"age":"age_none","gender":"gender_none","age_score":0,"gender_score":0},"status":200}`...)
	w.Header().Set("Content-Type", "application/json")
	writeWhole(w, fault, b, nil)
}

// saluteSynthesize answers text:synthesize with the audio streamed in chunks.
func (s *Server) saluteSynthesize(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(r)
	if !ok {
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/text" && mt != "application/ssml" {
		writeGigaError(w, http.StatusBadRequest, "Content-Type must be application/text or application/ssml")
		return
	}
	text := string(body)
	q := r.URL.Query()
	name, rate, _ := strings.Cut(q.Get("voice"), "_")
	n := utf8.RuneCountInString(text)
	switch {
	case !slices.Contains(saluteVoices, name) || rate != "24000": // the 8 kHz voices are not made
		writeGigaError(w, http.StatusBadRequest, "Unknown voice "+q.Get("voice"))
		return
	case n == 0 || !utf8.ValidString(text):
		writeGigaError(w, http.StatusBadRequest, "Empty or invalid text")
		return
	case n > saluteMaxChars:
		writeGigaError(w, http.StatusBadRequest, "Text is longer than 4000 characters")
		return
	}
	const half = 24000 // bytes: half a second of 16-bit samples at 24 kHz
	var chunks [][]byte
	var ct string
	switch q.Get("format") {
	case "opus":
		pages := oggPages(Speech(text, "opus"))
		chunks = append([][]byte{bytes.Join(pages[:min(3, len(pages))], nil)}, pages[min(3, len(pages)):]...)
		ct = "audio/ogg;codecs=opus"
	case "wav16":
		chunks = split(Speech(text, "wav"), 44+half, half) // the header and half a second, then half a second a chunk
		ct = "audio/x-wav"
	case "pcm16":
		chunks = split(Speech(text, "pcm"), half, half)
		ct = "audio/x-pcm;bit=16;rate=24000"
	default:
		writeGigaError(w, http.StatusBadRequest, "Unsupported format "+q.Get("format"))
		return
	}
	fault := audioFault(r, "", text)
	if !s.saluteBegin(w, r, fault) {
		return
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for i, c := range chunks {
		if i > 0 && !s.wait(r.Context(), SaluteChunkDelay) {
			return
		}
		if !writeFlush(w, f, c) {
			return
		}
		if fault == FaultCut {
			Abort()
		}
	}
}

// transcriptPhrases are Transcript(seconds) in two phrases, as SaluteSpeech
// answers a phrase a pause; joined with a space they are the transcript.
func transcriptPhrases(seconds float64) []string {
	before, after, _ := strings.Cut(Transcript(seconds), " of ")
	return []string{before, "of " + after}
}

// oggPages splits an Ogg stream into its pages.
func oggPages(b []byte) [][]byte {
	var pages [][]byte
	for off := 0; off+27 <= len(b); {
		segs := int(b[off+26])
		size := 27 + segs
		for _, s := range b[off+27 : off+27+segs] {
			size += int(s)
		}
		pages = append(pages, b[off:off+size])
		off += size
	}
	return pages
}

// split cuts b into pieces of n bytes, the first of first bytes.
func split(b []byte, first, n int) [][]byte {
	var out [][]byte
	for cut := first; len(b) > 0; cut = n {
		cut = min(cut, len(b))
		out = append(out, b[:cut])
		b = b[cut:]
	}
	return out
}
