package yandex

import (
	"testing"

	"github.com/shlyuz/shlyuz"
)

func TestArtRequest(t *testing.T) {
	cases := []struct {
		req  shlyuz.ImageRequest
		want string
	}{
		{shlyuz.ImageRequest{Model: "yandex-art", Prompt: "кот", Size: "1024x576"},
			`{"modelUri":"art://b1g/yandex-art/latest","messages":[{"text":"кот","weight":1}],"generationOptions":{"mimeType":"image/jpeg","aspectRatio":{"widthRatio":"1024","heightRatio":"576"}}}`},
		{shlyuz.ImageRequest{Model: "yandex-art/rc", Prompt: "x", Size: "1024x1024", AspectRatio: "16:9"},
			`{"modelUri":"art://b1g/yandex-art/rc","messages":[{"text":"x","weight":1}],"generationOptions":{"mimeType":"image/jpeg","aspectRatio":{"widthRatio":"16","heightRatio":"9"}}}`},
		{shlyuz.ImageRequest{Model: "yandex-art", Prompt: "x"},
			`{"modelUri":"art://b1g/yandex-art/latest","messages":[{"text":"x","weight":1}],"generationOptions":{"mimeType":"image/jpeg"}}`},
	}
	for _, tc := range cases {
		if got := string(artBody("b1g", &tc.req)); got != tc.want {
			t.Errorf("%+v:\n got  %s\n want %s", tc.req, got, tc.want)
		}
	}
	for msg, want := range map[string]bool{"Я не могу сгенерировать такое изображение": true, "it may violate the terms of use": true, "aspectRatio is invalid": false} {
		if refusedPrompt(msg) != want {
			t.Errorf("refusedPrompt(%q) = %v", msg, !want)
		}
	}
}
