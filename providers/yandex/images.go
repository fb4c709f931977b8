package yandex

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// YandexART (art://<folder>/<model>): an asynchronous operation, created with
// imageGenerationAsync and polled within the client's request (bounded by
// the upstream's time-out), one JPEG per operation. A prompt the model
// refuses comes back as an HTTP 400 at creation.

var _ shlyuz.ImageProvider = (*Provider)(nil)

const artPath = "/foundationModels/v1/imageGenerationAsync"

type artRequest struct {
	ModelURI          string       `json:"modelUri"`
	Messages          []artMessage `json:"messages"`
	GenerationOptions artOptions   `json:"generationOptions"`
}

type artMessage struct {
	Text   string  `json:"text"`
	Weight float64 `json:"weight"`
}

type artOptions struct {
	MimeType    string          `json:"mimeType"`
	Seed        string          `json:"seed,omitempty"`
	AspectRatio *artAspectRatio `json:"aspectRatio,omitempty"`
}

type artAspectRatio struct {
	WidthRatio  string `json:"widthRatio"`
	HeightRatio string `json:"heightRatio"`
}

// artBody is the create request: the size's width and height as the ratio.
func artBody(folder string, req *shlyuz.ImageRequest) []byte {
	model := req.Model
	if !strings.Contains(model, "/") {
		model += "/latest"
	}
	body := artRequest{ModelURI: "art://" + folder + "/" + model, Messages: []artMessage{{Text: req.Prompt, Weight: 1}},
		GenerationOptions: artOptions{MimeType: "image/jpeg"}}
	w, h, ok := strings.Cut(req.Size, "x")
	if a, b, okr := strings.Cut(req.AspectRatio, ":"); okr {
		w, h, ok = a, b, true
	}
	if ok {
		body.GenerationOptions.AspectRatio = &artAspectRatio{WidthRatio: w, HeightRatio: h}
	}
	b, _ := json.Marshal(body)
	return b
}

// GenerateImages makes req.N images, one operation each, one after another.
func (p *Provider) GenerateImages(ctx context.Context, req *shlyuz.ImageRequest) (*shlyuz.ImageResult, error) {
	out := &shlyuz.ImageResult{}
	for range max(1, req.N) {
		img, err := p.generateImage(ctx, req)
		if err != nil {
			if len(out.Images) > 0 { // bill what was made; the rest failed
				return out, nil
			}
			return nil, err
		}
		out.Images = append(out.Images, shlyuz.GeneratedImage{Data: img, MediaType: "image/jpeg"})
	}
	return out, nil
}

func (p *Provider) generateImage(ctx context.Context, req *shlyuz.ImageRequest) ([]byte, error) {
	var op operation
	if err := p.callJSON(ctx, p.base+artPath, artBody(p.cfg.FolderID, req), &op); err != nil {
		if e := shlyuz.AsError(err); e.Status == http.StatusBadRequest && refusedPrompt(e.Message) {
			return nil, shlyuz.ErrContentPolicy("The upstream refused the prompt: %s", e.Message)
		}
		return nil, err
	}
	if err := p.await(ctx, p.base, "image generation", &op); err != nil {
		return nil, err
	}
	var res struct {
		Image string `json:"image"`
	}
	if json.Unmarshal(op.Response, &res) != nil || res.Image == "" {
		return nil, upstream.Malformed("the finished operation holds no image")
	}
	img, err := base64.StdEncoding.DecodeString(res.Image)
	if err != nil {
		return nil, upstream.Malformed("the image is not valid base64")
	}
	return img, nil
}

// refusedPrompt reports whether a 400's message is YandexART's refusal of a prompt.
func refusedPrompt(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "не могу сгенерировать") || strings.Contains(m, "violate") || strings.Contains(m, "terms of use")
}
