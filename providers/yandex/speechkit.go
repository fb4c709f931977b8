package yandex

import (
	"net/url"
	"strings"
)

// SpeechKit's hosts in Yandex Cloud: recognition, synthesis, and the
// operations of asynchronous recognition.
const (
	sttHost       = "https://stt.api.cloud.yandex.net"
	ttsHost       = "https://tts.api.cloud.yandex.net"
	operationHost = "https://operation.api.cloud.yandex.net"
)

// speechKitRoots are the roots of SpeechKit's recognition and synthesis APIs
// and of the operations API: Yandex Cloud's own hosts when base is a Yandex
// Cloud host, else base itself, a server (the fake, a proxy) that serves
// every API's paths under one root, as YandexART's are.
func speechKitRoots(base string) (stt, tts, ops string) {
	if u, err := url.Parse(base); err == nil && strings.HasSuffix(strings.ToLower(u.Hostname()), ".cloud.yandex.net") {
		return sttHost, ttsHost, operationHost
	}
	return base, base, base
}

// languages are SpeechKit's language codes for the two-letter ones OpenAI's
// clients send.
var languages = map[string]string{
	"ru": "ru-RU", "en": "en-US", "de": "de-DE", "es": "es-ES", "fi": "fi-FI", "fr": "fr-FR", "he": "he-IL",
	"it": "it-IT", "kk": "kk-KZ", "nl": "nl-NL", "pl": "pl-PL", "pt": "pt-PT", "sv": "sv-SE", "tr": "tr-TR", "uz": "uz-UZ",
}

// language is SpeechKit's code for a client's language: ru-RU when it
// names none, the full code of a two-letter one, else as given.
func language(lang string) string {
	if lang == "" {
		return "ru-RU"
	}
	if l, ok := languages[strings.ToLower(lang)]; ok {
		return l
	}
	return lang
}
