package main

import "encoding/json"

// speechSpec is shlyuz.SpeechSpec as written to catalog.json, prices as the
// literal text of the source numbers.
type speechSpec struct {
	Voices               []string    `json:"voices"`
	DefaultVoice         string      `json:"default_voice"`
	Formats              []string    `json:"formats"`
	DefaultFormat        string      `json:"default_format"`
	MaxInput             int         `json:"max_input_chars"`
	Unit                 string      `json:"unit"`
	USDPerMChars         json.Number `json:"usd_per_mchars,omitempty"`
	BlockChars           int64       `json:"block_chars,omitempty"`
	USDPerMAudioTokens   json.Number `json:"usd_per_m_audio_tokens,omitempty"`
	AudioTokensPerSecond int64       `json:"audio_tokens_per_second,omitempty"`
	MaxSeconds           int64       `json:"max_seconds,omitempty"`
}

// transcriptionSpec is shlyuz.TranscriptionSpec as written to catalog.json.
type transcriptionSpec struct {
	Formats              []string    `json:"formats"`
	ResponseFormats      []string    `json:"response_formats"`
	MaxBytes             int64       `json:"max_bytes"`
	MaxSeconds           int64       `json:"max_seconds"`
	Unit                 string      `json:"unit"`
	USDPerMinute         json.Number `json:"usd_per_minute,omitempty"`
	BlockSeconds         int64       `json:"block_seconds,omitempty"`
	MinSeconds           int64       `json:"min_seconds,omitempty"`
	USDPerMAudioTokens   json.Number `json:"usd_per_m_audio_tokens,omitempty"`
	AudioTokensPerSecond int64       `json:"audio_tokens_per_second,omitempty"`
}

// audioModels are the models of the audio API, from the list prices in
// shared/research/media-upstreams.md §3–§4:
//   - OpenAI: whisper-1 $0.006 a minute (billed by the seconds it reports);
//     gpt-4o-transcribe $2.5/M text in, $6/M audio in, $10/M out, and
//     gpt-4o-mini-transcribe $1.25 / $3 / $5 (its reported tokens); tts-1
//     $15 and tts-1-hd $30 per million characters;
//   - Yandex SpeechKit: recognition per started 15-second block, 15 s at
//     least, $0.0082 a minute (0.1632 ₽ a block at ~80 ₽/$); synthesis v1
//     about $11 per million characters; v3 per started 250-character unit
//     (~$0.00133 a unit, $5.32 per million);
//   - Sber SaluteSpeech: no public per-unit rate was found (research ⚠); the
//     prices here ($0.008 a minute of recognition, $12 per million
//     characters of synthesis) are placeholders of the same order as
//     SpeechKit's, for the operator to override;
//   - Gemini: gemini-2.5-flash transcribes audio (at most 14 MB inline: 20 MB
//     of request once in base64) at $1/M audio tokens
//     (32 a second), $0.30/M text in, $2.50/M out (its chat prices);
//     gemini-2.5-flash-preview-tts $0.50/M text in, $10/M audio out
//     (25 tokens a second of speech).
func audioModels() []catalogModel {
	const created = 1767225600 // 2026-01-01T00:00:00Z
	openaiVoices := []string{"alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"}
	tts := func(id, name string, spec speechSpec) catalogModel {
		return catalogModel{ID: id, Name: name, InputModalities: []string{"text"}, OutputModalities: []string{"speech"},
			USD: literalUSD{Prompt: "0", Completion: "0"}, Created: created, Speech: &spec}
	}
	stt := func(id, name string, usd literalUSD, spec transcriptionSpec) catalogModel {
		return catalogModel{ID: id, Name: name, InputModalities: []string{"audio"}, OutputModalities: []string{"transcription"},
			USD: usd, Created: created, MaxOutputTokens: 16384, Transcription: &spec}
	}
	whisperFormats := []string{"flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "ogg", "wav", "webm"}
	const mb25 = 25 << 20
	salute := []string{"May_24000", "Nec_24000", "Bys_24000", "Tur_24000", "Ost_24000", "Pon_24000", "Kin_24000"}
	yandexVoices := []string{"alena", "filipp", "ermil", "jane", "madirus", "omazh", "zahar", "dasha", "julia", "lera", "masha", "marina", "alexander", "kirill", "anton", "john"}
	geminiVoices := []string{"Zephyr", "Puck", "Charon", "Kore", "Fenrir", "Leda", "Orus", "Aoede", "Callirrhoe", "Autonoe", "Enceladus", "Iapetus",
		"Umbriel", "Algieba", "Despina", "Erinome", "Algenib", "Rasalgethi", "Laomedeia", "Achernar", "Alnilam", "Schedar", "Gacrux",
		"Pulcherrima", "Achird", "Zubenelgenubi", "Vindemiatrix", "Sadachbia", "Sadaltager", "Sulafat"}
	return []catalogModel{
		stt("openai/whisper-1", "OpenAI: Whisper", literalUSD{Prompt: "0", Completion: "0"}, transcriptionSpec{Formats: whisperFormats,
			ResponseFormats: []string{"json", "verbose_json", "text", "srt", "vtt"}, MaxBytes: mb25, MaxSeconds: 7200, Unit: "second", USDPerMinute: "0.006"}),
		stt("openai/gpt-4o-transcribe", "OpenAI: GPT-4o Transcribe", literalUSD{Prompt: "2.5", Completion: "10"}, transcriptionSpec{Formats: whisperFormats,
			ResponseFormats: []string{"json", "text"}, MaxBytes: mb25, MaxSeconds: 1500, Unit: "token", USDPerMAudioTokens: "6", AudioTokensPerSecond: 10}),
		stt("openai/gpt-4o-mini-transcribe", "OpenAI: GPT-4o mini Transcribe", literalUSD{Prompt: "1.25", Completion: "5"}, transcriptionSpec{Formats: whisperFormats,
			ResponseFormats: []string{"json", "text"}, MaxBytes: mb25, MaxSeconds: 1500, Unit: "token", USDPerMAudioTokens: "3", AudioTokensPerSecond: 10}),
		tts("openai/tts-1", "OpenAI: TTS 1", speechSpec{Voices: openaiVoices, DefaultVoice: "alloy", Formats: []string{"mp3", "opus", "aac", "flac", "wav", "pcm"},
			DefaultFormat: "mp3", MaxInput: 4096, Unit: "character", USDPerMChars: "15"}),
		tts("openai/tts-1-hd", "OpenAI: TTS 1 HD", speechSpec{Voices: openaiVoices, DefaultVoice: "alloy", Formats: []string{"mp3", "opus", "aac", "flac", "wav", "pcm"},
			DefaultFormat: "mp3", MaxInput: 4096, Unit: "character", USDPerMChars: "30"}),
		stt("yandex/speechkit-stt", "Yandex: SpeechKit recognition", literalUSD{Prompt: "0", Completion: "0"}, transcriptionSpec{Formats: []string{"wav", "ogg", "mp3"},
			ResponseFormats: []string{"json", "verbose_json", "text", "srt", "vtt"}, MaxBytes: mb25, MaxSeconds: 14400, Unit: "second", USDPerMinute: "0.0082", BlockSeconds: 15, MinSeconds: 15}),
		tts("yandex/speechkit-tts", "Yandex: SpeechKit synthesis", speechSpec{Voices: yandexVoices, DefaultVoice: "alena", Formats: []string{"mp3", "opus", "wav", "pcm"},
			DefaultFormat: "mp3", MaxInput: 5000, Unit: "character", USDPerMChars: "11"}),
		tts("yandex/speechkit-tts-v3", "Yandex: SpeechKit synthesis v3", speechSpec{Voices: yandexVoices, DefaultVoice: "alena", Formats: []string{"mp3", "opus", "wav", "pcm"},
			DefaultFormat: "mp3", MaxInput: 5000, Unit: "character", USDPerMChars: "5.32", BlockChars: 250}),
		stt("sber/salute-stt", "Sber: SaluteSpeech recognition", literalUSD{Prompt: "0", Completion: "0"}, transcriptionSpec{Formats: []string{"wav", "ogg", "mp3", "flac"},
			ResponseFormats: []string{"json", "verbose_json", "text", "srt", "vtt"}, MaxBytes: 2 << 20, MaxSeconds: 60, Unit: "second", USDPerMinute: "0.008"}),
		tts("sber/salute-tts", "Sber: SaluteSpeech synthesis", speechSpec{Voices: salute, DefaultVoice: "May_24000", Formats: []string{"opus", "wav", "pcm"},
			DefaultFormat: "opus", MaxInput: 4000, Unit: "character", USDPerMChars: "12"}),
		{ID: "google/gemini-2.5-flash-preview-tts", Name: "Google: Gemini 2.5 Flash TTS", InputModalities: []string{"text"}, OutputModalities: []string{"speech"},
			USD: literalUSD{Prompt: "0.5", Completion: "0"}, Created: created, Speech: &speechSpec{Voices: geminiVoices, DefaultVoice: "Kore",
				Formats: []string{"wav", "pcm"}, DefaultFormat: "wav", MaxInput: 8000, Unit: "token", USDPerMAudioTokens: "10", AudioTokensPerSecond: 25, MaxSeconds: 655}},
		tts("demo/tts", "Demo: Speech", speechSpec{Voices: openaiVoices, DefaultVoice: "alloy", Formats: []string{"mp3", "opus", "wav", "pcm"},
			DefaultFormat: "mp3", MaxInput: 4096, Unit: "character", USDPerMChars: "1"}),
		stt("demo/whisper", "Demo: Transcription", literalUSD{Prompt: "0", Completion: "0"}, transcriptionSpec{Formats: whisperFormats,
			ResponseFormats: []string{"json", "verbose_json", "text", "srt", "vtt"}, MaxBytes: mb25, MaxSeconds: 7200, Unit: "second", USDPerMinute: "0.001"}),
	}
}

// withTranscription gives chat models that also transcribe audio (Gemini's
// audio understanding) their transcription spec.
func withTranscription(models []catalogModel) {
	for i := range models {
		if models[i].ID == "google/gemini-2.5-flash" {
			models[i].Transcription = &transcriptionSpec{Formats: []string{"wav", "mp3", "aac", "ogg", "flac"},
				ResponseFormats: []string{"json", "verbose_json", "text", "srt", "vtt"}, MaxBytes: 14 << 20, MaxSeconds: 34200,
				Unit: "token", USDPerMAudioTokens: "1", AudioTokensPerSecond: 32}
		}
	}
}
