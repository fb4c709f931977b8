package bfl

import (
	"encoding/json"
	"testing"

	"github.com/shlyuz/shlyuz"
)

func TestCreateBody(t *testing.T) {
	cases := []struct {
		req  shlyuz.ImageRequest
		want string
	}{
		{shlyuz.ImageRequest{Prompt: "a fox", Size: "1344x768", OutputFormat: "png"}, `{"prompt":"a fox","width":1344,"height":768,"output_format":"png"}`},
		{shlyuz.ImageRequest{Prompt: "x", AspectRatio: "16:9", OutputFormat: "webp"}, `{"prompt":"x","aspect_ratio":"16:9"}`},
		{shlyuz.ImageRequest{Prompt: "x", Size: "1024x1024", AspectRatio: "1:1"}, `{"prompt":"x","width":1024,"height":1024}`},
	}
	for _, tc := range cases {
		b, _ := json.Marshal(body(&tc.req))
		if string(b) != tc.want {
			t.Errorf("%+v:\n got  %s\n want %s", tc.req, b, tc.want)
		}
	}
	if _, err := New(shlyuz.UpstreamConfig{Name: "flux"}); err == nil {
		t.Error("an upstream without a key was accepted")
	}
}
