package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
)

// TestImagesRequestGolden checks the image API's request bodies.
func TestImagesRequestGolden(t *testing.T) {
	golden.Run(t, "images_request", ".json", func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		var req shlyuz.ImageRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		return golden.Indent(t, imagesBody(&req))
	})
}

// TestImagesReplyGolden feeds recorded image API replies through GenerateImages over HTTP.
func TestImagesReplyGolden(t *testing.T) {
	golden.Run(t, "images_reply", ".json", func(t *testing.T, c golden.Case) []byte {
		url := golden.Serve(t, c.Path, "application/json")
		p := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: url})
		r, err := p.GenerateImages(context.Background(), &shlyuz.ImageRequest{Model: "m", Prompt: "p", N: 1})
		if err != nil {
			return fmt.Appendf(nil, "error: %v\n", err)
		}
		out := fmt.Appendf(nil, "images=%d usage=%+v\n", len(r.Images), r.Usage)
		for i, img := range r.Images {
			out = fmt.Appendf(out, "image %d: %s, %d bytes, decodes=%v, revised_prompt=%q\n", i, img.MediaType, len(img.Data), shlyuz.ImageDecodes(img.Data), img.RevisedPrompt)
		}
		return out
	})
}
