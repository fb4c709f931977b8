package fake

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz/media"
)

// Audio through Gemini's generateContent (research/media-upstreams.md §3.4,
// §4.4). Audio in an inlineData part (audio/wav, mp3, ogg, flac, aac, aiff)
// is transcribed: the reply says Transcript(duration) and its usageMetadata
// counts the audio at GeminiAudioTokensPerSecond under modality AUDIO.
// responseModalities ["AUDIO"] (a *-tts model only; a prebuilt voice from
// GeminiVoices) is spoken: Speech(text, "pcm"), 16-bit PCM at 24 kHz, in an
// inlineData part of audio/L16;codec=pcm;rate=24000, its tokens at GeminiAudioTokensPerSecond under candidatesTokensDetails AUDIO.
// Faults as the other audio endpoints: a marker in the text, the header, or
// fault-<name> in the model.

// GeminiAudioTokensPerSecond is how many tokens a second of audio is, in and out.
const GeminiAudioTokensPerSecond = 32

// GeminiVoices are Gemini TTS's prebuilt voices.
var GeminiVoices = []string{"Zephyr", "Puck", "Charon", "Kore", "Fenrir", "Leda", "Orus", "Aoede", "Callirrhoe",
	"Autonoe", "Enceladus", "Iapetus", "Umbriel", "Algieba", "Despina", "Erinome", "Algenib", "Rasalgethi",
	"Laomedeia", "Achernar", "Alnilam", "Schedar", "Gacrux", "Pulcherrima", "Achird", "Zubenelgenubi",
	"Vindemiatrix", "Sadachbia", "Sadaltager", "Sulafat"}

// geminiAudioFormats maps the audio MIME types Gemini reads to containers.
var geminiAudioFormats = map[string]string{"audio/wav": "wav", "audio/x-wav": "wav", "audio/mp3": "mp3",
	"audio/mpeg": "mp3", "audio/ogg": "ogg", "audio/flac": "flac", "audio/aac": "aac", "audio/aiff": "aiff"}

type geminiAudioRequest struct {
	Contents []struct {
		Parts []struct {
			Text       string `json:"text"`
			InlineData *struct {
				MimeType string `json:"mimeType"`
				Data     string `json:"data"`
			} `json:"inlineData"`
		} `json:"parts"`
	} `json:"contents"`
	GenerationConfig *struct {
		ResponseModalities []string `json:"responseModalities"`
		SpeechConfig       *struct {
			VoiceConfig *struct {
				PrebuiltVoiceConfig *struct {
					VoiceName string `json:"voiceName"`
				} `json:"prebuiltVoiceConfig"`
			} `json:"voiceConfig"`
		} `json:"speechConfig"`
	} `json:"generationConfig"`
}

// geminiAudio answers a generateContent call that carries audio or asks for
// it; false when the call does neither (the chat reply follows).
func (s *Server) geminiAudio(w http.ResponseWriter, r *http.Request, model, method string, body []byte) bool {
	var req geminiAudioRequest
	if method != "generateContent" || json.Unmarshal(body, &req) != nil {
		return false
	}
	var text strings.Builder
	var audio [][]byte
	var formats []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			text.WriteString(p.Text)
			if d := p.InlineData; d != nil && strings.HasPrefix(d.MimeType, "audio/") {
				data, _ := base64.StdEncoding.DecodeString(d.Data) // checked by parseGemini
				audio, formats = append(audio, data), append(formats, geminiAudioFormats[d.MimeType])
				if formats[len(formats)-1] == "" {
					writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Unsupported MIME type: "+d.MimeType, "")
					return true
				}
			}
		}
	}
	speak := req.GenerationConfig != nil && slices.Contains(req.GenerationConfig.ResponseModalities, "AUDIO")
	if len(audio) == 0 && !speak {
		return false
	}
	fault := audioFault(r, model, text.String())
	if !s.Begin(r.Context(), fault) {
		return true
	}
	if status, _ := StatusOf(fault); status != 0 {
		writeGeminiStatusFault(w, status, model)
		return true
	}
	chars := utf8.RuneCountInString(text.String())
	textTokens := max(1, chars/4)
	if speak {
		s.geminiSpeak(w, &req, model, fault, text.String(), textTokens)
		return true
	}
	secs := 0.0
	for i, a := range audio {
		d, exact := DecodedSeconds(formats[i], a)
		switch formats[i] {
		case "aac", "aiff": // not measured: the estimate from the size
		default:
			if media.SniffAudio(a) != formats[i] || !exact {
				writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Unable to process input audio: the data is not "+formats[i]+".", "")
				return true
			}
		}
		secs += d
	}
	transcript := Transcript(secs)
	at := audioTokens(secs, GeminiAudioTokensPerSecond)
	out := max(1, len(transcript)/4)
	part := `{"text":` + string(appendJSONString(nil, transcript)) + `}`
	usage := geminiAudioUsage(textTokens+at, out, `[{"modality":"TEXT","tokenCount":`+strconv.Itoa(textTokens)+`},{"modality":"AUDIO","tokenCount":`+strconv.Itoa(at)+`}]`,
		`[{"modality":"TEXT","tokenCount":`+strconv.Itoa(out)+`}]`)
	writeGeminiAudioReply(w, model, fault, part, usage)
	return true
}

// geminiSpeak answers a call for speech.
func (s *Server) geminiSpeak(w http.ResponseWriter, req *geminiAudioRequest, model, fault, text string, textTokens int) {
	if !strings.Contains(model, "tts") {
		writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "The requested combination of response modalities (AUDIO) is not supported by the model "+model+".", "")
		return
	}
	if sc := req.GenerationConfig.SpeechConfig; sc != nil && sc.VoiceConfig != nil && sc.VoiceConfig.PrebuiltVoiceConfig != nil {
		v := sc.VoiceConfig.PrebuiltVoiceConfig.VoiceName
		if !slices.ContainsFunc(GeminiVoices, func(g string) bool { return strings.EqualFold(g, v) }) {
			writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Voice name "+v+" is not supported.", "")
			return
		}
	}
	pcm := Speech(text, "pcm")
	at := audioTokens(float64(len(pcm))/48000, GeminiAudioTokensPerSecond)
	part := `{"inlineData":{"mimeType":"audio/L16;codec=pcm;rate=24000","data":"` + base64.StdEncoding.EncodeToString(pcm) + `"}}`
	usage := geminiAudioUsage(textTokens, at, `[{"modality":"TEXT","tokenCount":`+strconv.Itoa(textTokens)+`}]`,
		`[{"modality":"AUDIO","tokenCount":`+strconv.Itoa(at)+`}]`)
	writeGeminiAudioReply(w, model, fault, part, usage)
}

// geminiAudioUsage is a usageMetadata object with its modality details.
func geminiAudioUsage(prompt, candidates int, promptDetails, candidatesDetails string) string {
	return `{"promptTokenCount":` + strconv.Itoa(prompt) + `,"candidatesTokenCount":` + strconv.Itoa(candidates) +
		`,"totalTokenCount":` + strconv.Itoa(prompt+candidates) + `,"promptTokensDetails":` + promptDetails +
		`,"candidatesTokensDetails":` + candidatesDetails + `}`
}

// writeGeminiAudioReply writes a GenerateContentResponse of one part.
func writeGeminiAudioReply(w http.ResponseWriter, model, fault, part, usage string) {
	b := `{"candidates":[{"content":{"parts":[` + part + `],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":` +
		usage + `,"modelVersion":` + string(appendJSONString(nil, model)) + `,"responseId":"fake-audio"}`
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	writeWhole(w, fault, []byte(b), nil)
}
