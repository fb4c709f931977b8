package yandex

import "testing"

func TestSpeechKitRoots(t *testing.T) {
	for _, tc := range []struct{ base, stt, tts, ops string }{
		{DefaultBaseURL, sttHost, ttsHost, operationHost},
		{"https://llm.api.cloud.yandex.net:443", sttHost, ttsHost, operationHost},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", "http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"https://proxy.example/yandex", "https://proxy.example/yandex", "https://proxy.example/yandex", "https://proxy.example/yandex"},
	} {
		if stt, tts, ops := speechKitRoots(tc.base); stt != tc.stt || tts != tc.tts || ops != tc.ops {
			t.Errorf("%s: %s %s %s", tc.base, stt, tts, ops)
		}
	}
	for in, want := range map[string]string{"": "ru-RU", "ru": "ru-RU", "EN": "en-US", "kk-KZ": "kk-KZ", "auto": "auto"} {
		if got := language(in); got != want {
			t.Errorf("language(%q) = %q, want %q", in, got, want)
		}
	}
}
