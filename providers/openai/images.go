package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// The OpenAI image API (/v1/images/generations): gpt-image models answer
// base64 with token usage, dall-e models per image without usage (asked for
// base64; an upstream that answers URLs anyway has them fetched at once,
// since they expire).

var _ shlyuz.ImageProvider = (*Provider)(nil)

// maxImageReply bounds an image reply (several base64 images) and a fetched image.
const maxImageReply = 64 << 20

type wireImages struct {
	Data []struct {
		B64JSON       string `json:"b64_json"`
		URL           string `json:"url"`
		RevisedPrompt string `json:"revised_prompt"`
	} `json:"data"`
	OutputFormat string             `json:"output_format"`
	Usage        *shlyuz.ImageUsage `json:"usage"`
}

// imagesBody is the JSON request: only the fields set, and response_format
// for the dall-e models (the gpt-image models always answer base64 and
// refuse the field).
func imagesBody(req *shlyuz.ImageRequest) []byte {
	body := map[string]any{"model": req.Model, "prompt": req.Prompt, "n": req.N}
	for k, v := range map[string]string{"size": req.Size, "quality": req.Quality, "background": req.Background, "output_format": req.OutputFormat} {
		if v != "" {
			body[k] = v
		}
	}
	if req.OutputCompression != nil {
		body["output_compression"] = *req.OutputCompression
	}
	if strings.Contains(req.Model, "dall-e") {
		body["response_format"] = "b64_json"
	}
	b, _ := plainjson.Marshal(body) // the prompt as the client wrote it
	return b
}

// GenerateImages makes the images and returns their bytes.
func (p *Provider) GenerateImages(ctx context.Context, req *shlyuz.ImageRequest) (*shlyuz.ImageResult, error) {
	h := p.header.Clone()
	h.Set("Content-Type", "application/json")
	resp, err := p.send(ctx, http.MethodPost, strings.TrimRight(p.cfg.BaseURL, "/")+"/images/generations", h, imagesBody(req))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxImageReply))
	if err != nil {
		return nil, errs.Call(p.cfg.Name, ctx, nil, err, true)
	}
	var w wireImages
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, upstream.Malformed("the reply is not an image list")
	}
	mediaType := ""
	if w.OutputFormat != "" {
		mediaType = "image/" + w.OutputFormat
	}
	out := &shlyuz.ImageResult{Usage: w.Usage}
	for _, d := range w.Data {
		var img []byte
		switch {
		case d.B64JSON != "":
			if img, err = base64.StdEncoding.DecodeString(d.B64JSON); err != nil {
				return nil, upstream.Malformed("an image is not valid base64")
			}
		case d.URL != "":
			if img, err = p.fetchImage(ctx, d.URL); err != nil {
				return nil, err
			}
		default:
			continue
		}
		mt := mediaType
		if mt == "" {
			mt = http.DetectContentType(img)
		}
		out.Images = append(out.Images, shlyuz.GeneratedImage{Data: img, MediaType: mt, RevisedPrompt: d.RevisedPrompt})
	}
	return out, nil
}

// fetchImage downloads an image the upstream gave by URL, without
// credentials; a URL off the upstream's host goes through the guarded client.
func (p *Provider) fetchImage(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, upstream.Malformed("the image URL is not a URL")
	}
	hc, _ := upstream.ForURL(p.client, p.cfg.BaseURL, u)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, shlyuz.ErrUpstream("The upstream's image could not be fetched from the URL it gave: %s", shlyuz.AsError(errs.Call(p.cfg.Name, ctx, nil, err, false)).Message)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, shlyuz.ErrUpstream("The upstream's image could not be fetched from the URL it gave: HTTP %d.", resp.StatusCode)
	}
	img, err := io.ReadAll(io.LimitReader(resp.Body, maxImageReply))
	if err != nil {
		return nil, errs.Call(p.cfg.Name, ctx, nil, err, true)
	}
	return img, nil
}
