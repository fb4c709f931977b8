package shlyuz

import (
	"strings"
	"testing"
)

func TestAudioPrices(t *testing.T) {
	p := Pricing{Rate: MustDecimal("100"), K: MustDecimal("1")}
	_, byID := embeddedModelsByID(t)
	var ms []Model
	for _, id := range []string{"openai/tts-1", "openai/tts-1-hd", "yandex/speechkit-tts-v3", "openai/whisper-1", "yandex/speechkit-stt",
		"openai/gpt-4o-transcribe", "google/gemini-2.5-flash-preview-tts"} {
		ms = append(ms, byID[id])
	}
	cat := NewCatalog(ms, p)
	get := func(id string) *PricedModel {
		m, ok := cat.Get(id)
		if !ok {
			t.Fatalf("%s is not in the catalog", id)
		}
		return m
	}
	secs := func(s string) Decimal { return MustDecimal(s) }
	sixtyTwo := MustDecimal("62")
	cases := []struct {
		name string
		got  Credits
		want Credits
	}{
		{"tts-1, 1,000 characters at $15/M", get("openai/tts-1").SpeechCost(strings.Repeat("a", 1000), 0, nil, p), 150_000},
		{"tts-1-hd, 1,001 characters at $30/M", get("openai/tts-1-hd").SpeechWorst(strings.Repeat("я", 1001), 0, p), 300_300},
		{"SpeechKit v3, 251 characters billed as 500", get("yandex/speechkit-tts-v3").SpeechCost(strings.Repeat("b", 251), 0, nil, p), 26_600},
		{"whisper-1, 61.2 s billed as 62 s", get("openai/whisper-1").TranscriptionCost(secs("61.2"), nil, p), 62_000},
		{"whisper-1, the upstream's 62 s", get("openai/whisper-1").TranscriptionCost(secs("1"), &AudioUsage{Seconds: &sixtyTwo}, p), 62_000},
		{"SpeechKit, 5 s billed as a 15 s block", get("yandex/speechkit-stt").TranscriptionCost(secs("5"), nil, p), 20_500},
		{"SpeechKit, 37 s billed as 45 s", get("yandex/speechkit-stt").TranscriptionWorst(secs("37"), 0, p), 61_500},
		{"gpt-4o-transcribe, 10 text + 100 audio in, 20 out", get("openai/gpt-4o-transcribe").TranscriptionCost(secs("10"),
			&AudioUsage{TextTokens: 10, AudioTokens: 100, OutputTokens: 20}, p), 8_250},
		{"Gemini TTS, 10 text in + 250 audio out", get("google/gemini-2.5-flash-preview-tts").SpeechCost("hello", 2,
			&AudioUsage{TextTokens: 10, AudioTokens: 250}, p), 25_050},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: %d credits, want %d", tc.name, tc.got, tc.want)
		}
	}
	// The worst case bounds the cost.
	tts := get("google/gemini-2.5-flash-preview-tts")
	if w, c := tts.SpeechWorst("hello", 2, p), tts.SpeechCost("hello", 2, &AudioUsage{TextTokens: 3, AudioTokens: 25 * 655}, p); c > w {
		t.Errorf("Gemini TTS: cost %d above the worst case %d", c, w)
	}
	gpt := get("openai/gpt-4o-transcribe")
	if w, c := gpt.TranscriptionWorst(secs("10"), 0, p), gpt.TranscriptionCost(secs("10"), &AudioUsage{AudioTokens: 100, OutputTokens: 400}, p); c > w {
		t.Errorf("gpt-4o-transcribe: cost %d above the worst case %d", c, w)
	}
}

func TestSpeechSpecCheck(t *testing.T) {
	s := &SpeechSpec{Voices: []string{"alloy"}, Formats: []string{"mp3", "wav"}, MaxInput: 5}
	for _, tc := range []struct{ input, voice, format, param, code string }{
		{"hello", "alloy", "mp3", "", ""},
		{"", "alloy", "mp3", "input", "missing_field"},
		{"hello!", "alloy", "mp3", "input", "invalid_value"},
		{"hi", "bob", "mp3", "voice", "invalid_value"},
		{"hi", "alloy", "flac", "response_format", "unsupported_format"},
	} {
		e := s.Check("m", tc.input, tc.voice, tc.format)
		if tc.code == "" {
			if e != nil {
				t.Errorf("%+v: refused: %v", tc, e)
			}
			continue
		}
		if e == nil || e.Code != tc.code || e.Param == nil || *e.Param != tc.param {
			t.Errorf("%+v: got %+v", tc, e)
		}
	}
}
