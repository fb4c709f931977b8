package gemini

import (
	"testing"

	"github.com/shlyuz/shlyuz"
)

func TestImagenRequest(t *testing.T) {
	cases := []struct {
		req  shlyuz.ImageRequest
		want string
	}{
		{shlyuz.ImageRequest{Prompt: "a cat", N: 2, Size: "1024x1024"},
			`{"instances":[{"prompt":"a cat"}],"parameters":{"sampleCount":2,"aspectRatio":"1:1"}}`},
		{shlyuz.ImageRequest{Prompt: "x", Size: "1408x768", OutputFormat: "jpeg"},
			`{"instances":[{"prompt":"x"}],"parameters":{"sampleCount":1,"aspectRatio":"16:9","outputOptions":{"mimeType":"image/jpeg"}}}`},
		{shlyuz.ImageRequest{Prompt: "x", N: 1, Size: "896x1280"},
			`{"instances":[{"prompt":"x"}],"parameters":{"sampleCount":1,"aspectRatio":"3:4"}}`},
		{shlyuz.ImageRequest{Prompt: "x", N: 1, Size: "1024x1024", AspectRatio: "9:16", OutputFormat: "webp"},
			`{"instances":[{"prompt":"x"}],"parameters":{"sampleCount":1,"aspectRatio":"9:16"}}`},
		{shlyuz.ImageRequest{Prompt: "x", N: 1, Size: "nonsense"},
			`{"instances":[{"prompt":"x"}],"parameters":{"sampleCount":1,"aspectRatio":"1:1"}}`},
	}
	for _, tc := range cases {
		if got := string(imagenBody(&tc.req)); got != tc.want {
			t.Errorf("%+v:\n got  %s\n want %s", tc.req, got, tc.want)
		}
	}
}
