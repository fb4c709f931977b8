package fake

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
)

// OpenAI's audio API. /v1/audio/speech streams real audio (MP3 frames, Ogg
// Opus, WAV or raw PCM at 24 kHz) lasting SpeechSecondsPerChar a character,
// in chunks with a flush and a pause each; /v1/audio/transcriptions reads a
// multipart file, measures it and answers a transcript naming its duration,
// with whisper's duration usage (whole seconds, rounded up) or the gpt-4o
// transcribers' token usage (AudioTokensPerSecond). Faults by the model
// name: fault-500 (before any byte), fault-cut (the connection dropped after
// the first chunk), fault-slow (a longer pause a chunk), fault-nousage,
// fault-gate (the speech waits before its first byte until ReleaseSpeech).

// SpeechSecondsPerChar is how long the fake's speech of one character lasts.
const SpeechSecondsPerChar = 0.06

// AudioTokensPerSecond is how many audio tokens the fake counts a second.
const AudioTokensPerSecond = 10

// speechChunk is the size of one streamed piece of speech.
const speechChunk = 4096

// SpeechSeconds is how long the fake's speech of input lasts (half a second at least).
func SpeechSeconds(input string) float64 {
	return max(0.5, float64(len([]rune(input)))*SpeechSecondsPerChar)
}

// Speech is the fake's speech of input in format (mp3, opus, wav, pcm), or
// nil for a format it does not make.
func Speech(input, format string) []byte {
	secs := SpeechSeconds(input)
	switch format {
	case "mp3":
		return mediatest.MP3(secs)
	case "opus":
		return mediatest.OggOpus(secs)
	case "wav":
		return mediatest.WAV(secs, 24000)
	case "pcm":
		return mediatest.PCM(secs, 24000)
	}
	return nil
}

type speechRequest struct {
	Model  string `json:"model"`
	Input  string `json:"input"`
	Voice  string `json:"voice"`
	Format string `json:"response_format"`
}

func (s *Server) speech(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "", "Only POST is allowed here.")
		return
	}
	var req speechRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "", "We could not parse the JSON body of your request.")
		return
	}
	if req.Format == "" {
		req.Format = "mp3"
	}
	audio := Speech(req.Input, req.Format)
	switch {
	case req.Input == "" || req.Voice == "":
		writeError(w, http.StatusBadRequest, "invalid_request_error", "input", "", "input and voice are required.")
		return
	case audio == nil:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "response_format", "", "The fake does not make "+req.Format+".")
		return
	case strings.HasSuffix(req.Model, "fault-500"):
		writeError(w, http.StatusInternalServerError, "server_error", "", "", "The server had an error while processing your request.")
		return
	}
	if strings.HasSuffix(req.Model, "fault-gate") {
		s.gate.waiting.Add(1)
		select {
		case <-s.gate.release:
			s.gate.waiting.Add(-1)
		case <-r.Context().Done():
			s.gate.waiting.Add(-1)
			return
		case <-s.done:
			return
		}
	}
	pause := 2 * time.Millisecond
	if strings.HasSuffix(req.Model, "fault-slow") {
		pause = 50 * time.Millisecond
	}
	w.Header().Set("Content-Type", media.AudioMIME(req.Format))
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for off := 0; off < len(audio); off += speechChunk {
		if _, err := w.Write(audio[off:min(len(audio), off+speechChunk)]); err != nil {
			return // the gateway went away: stop making speech
		}
		if fl != nil {
			fl.Flush()
		}
		if strings.HasSuffix(req.Model, "fault-cut") {
			panic(http.ErrAbortHandler) // drop the connection mid-audio
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-time.After(pause):
		}
	}
}

// speechGate holds fault-gate speech before its first byte.
type speechGate struct {
	waiting atomic.Int64
	release chan struct{}
}

// SpeechWaiting is how many fault-gate speech requests wait for ReleaseSpeech.
func (s *Server) SpeechWaiting() int64 { return s.gate.waiting.Load() }

// ReleaseSpeech lets one waiting fault-gate speech request go on.
func (s *Server) ReleaseSpeech() {
	select {
	case s.gate.release <- struct{}{}:
	case <-s.done:
	}
}

// Transcript is the fake's transcript of audio lasting seconds.
func Transcript(seconds float64) string {
	return fmt.Sprintf("This is the transcript of %.2f seconds of audio.", seconds)
}

func (s *Server) transcriptions(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "", "The request is not a multipart form.")
		return
	}
	model, format := r.FormValue("model"), r.FormValue("response_format")
	f, _, err := r.FormFile("file")
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "file", "", "file is required.")
		return
	}
	audio, _ := io.ReadAll(f)
	kind := media.SniffAudio(audio)
	seconds, decoded := DecodedSeconds(kind, audio)
	switch {
	case kind == "" || !decoded:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "file", "invalid_value", "Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']")
		return
	case strings.HasSuffix(model, "fault-500"):
		writeError(w, http.StatusInternalServerError, "server_error", "", "", "The server had an error while processing your request.")
		return
	}
	text := Transcript(seconds)
	reply := map[string]any{"text": text}
	if format == "verbose_json" {
		reply["task"], reply["language"], reply["duration"] = "transcribe", "english", seconds
		reply["segments"] = []map[string]any{{"id": 0, "start": 0, "end": seconds, "text": text}}
	}
	switch {
	case strings.HasSuffix(model, "fault-nousage"):
	case strings.HasPrefix(model, "whisper") || strings.Contains(model, "/whisper"):
		reply["usage"] = map[string]any{"type": "duration", "seconds": int64(math.Ceil(seconds))}
	default:
		audioTokens := int64(math.Ceil(seconds * AudioTokensPerSecond))
		textTokens := int64(len(r.FormValue("prompt")) / 4)
		out := int64(len(strings.Fields(text)))
		reply["usage"] = map[string]any{"type": "tokens", "input_tokens": audioTokens + textTokens, "output_tokens": out,
			"total_tokens": audioTokens + textTokens + out, "input_token_details": map[string]int64{"audio_tokens": audioTokens, "text_tokens": textTokens}}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}
