package gemini

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Imagen through the Gemini API (`:predict`): a prompt and a sample count
// in, base64 images out, priced per image. Safety filters may drop samples
// (fewer predictions than asked, with a raiFilteredReason); only the images
// that came back are billed.

var _ shlyuz.ImageProvider = (*Provider)(nil)

type imagenRequest struct {
	Instances  []imagenInstance `json:"instances"`
	Parameters imagenParameters `json:"parameters"`
}

type imagenInstance struct {
	Prompt string `json:"prompt"`
}

type imagenParameters struct {
	SampleCount   int                  `json:"sampleCount"`
	AspectRatio   string               `json:"aspectRatio,omitempty"`
	OutputOptions *imagenOutputOptions `json:"outputOptions,omitempty"`
}

type imagenOutputOptions struct {
	MimeType string `json:"mimeType"`
}

type imagenReply struct {
	Predictions []struct {
		BytesBase64Encoded string `json:"bytesBase64Encoded"`
		MimeType           string `json:"mimeType"`
		RaiFilteredReason  string `json:"raiFilteredReason"`
	} `json:"predictions"`
}

// imagenRatios are the aspect ratios Imagen takes.
var imagenRatios = []string{"1:1", "3:4", "4:3", "9:16", "16:9"}

// imagenRatio is the aspect ratio nearest to a "WxH" size (1:1 when it is not one).
func imagenRatio(size string) string {
	ws, hs, _ := strings.Cut(size, "x")
	w, err1 := strconv.ParseFloat(ws, 64)
	h, err2 := strconv.ParseFloat(hs, 64)
	if err1 != nil || err2 != nil || w <= 0 || h <= 0 {
		return "1:1"
	}
	best, dist := "1:1", math.Inf(1)
	for _, r := range imagenRatios {
		a, b, _ := strings.Cut(r, ":")
		rw, _ := strconv.ParseFloat(a, 64)
		rh, _ := strconv.ParseFloat(b, 64)
		if d := math.Abs(math.Log(w/h) - math.Log(rw/rh)); d < dist {
			best, dist = r, d
		}
	}
	return best
}

// imagenBody is the :predict request for req.
func imagenBody(req *shlyuz.ImageRequest) []byte {
	body := imagenRequest{Instances: []imagenInstance{{Prompt: req.Prompt}},
		Parameters: imagenParameters{SampleCount: max(1, req.N), AspectRatio: req.AspectRatio}}
	if body.Parameters.AspectRatio == "" {
		body.Parameters.AspectRatio = imagenRatio(req.Size)
	}
	if req.OutputFormat == "jpeg" || req.OutputFormat == "png" {
		body.Parameters.OutputOptions = &imagenOutputOptions{MimeType: "image/" + req.OutputFormat}
	}
	b, _ := json.Marshal(body)
	return b
}

// GenerateImages calls the model's :predict and returns the images.
func (p *Provider) GenerateImages(ctx context.Context, req *shlyuz.ImageRequest) (*shlyuz.ImageResult, error) {
	model := strings.TrimPrefix(req.Model, "models/")
	c := &upstream.Call{
		Config: &p.cfg,
		Errors: errs,
		Send:   upstream.Post(p.client, p.models+url.PathEscape(model)+":predict", p.header, imagenBody(req), upstream.Accept(false)),
		Status: func(status int, h http.Header, body []byte) *shlyuz.Error {
			return statusError(p.cfg.Name, model, status, h, body, p.now())
		},
	}
	data, err := c.Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	var w imagenReply
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, upstream.Malformed("the reply is not a list of predictions")
	}
	out := &shlyuz.ImageResult{}
	filtered := ""
	for _, pr := range w.Predictions {
		if pr.BytesBase64Encoded == "" {
			filtered = pr.RaiFilteredReason
			continue
		}
		img, err := base64.StdEncoding.DecodeString(pr.BytesBase64Encoded)
		if err != nil {
			return nil, upstream.Malformed("an image is not valid base64")
		}
		out.Images = append(out.Images, shlyuz.GeneratedImage{Data: img, MediaType: pr.MimeType})
	}
	if len(out.Images) == 0 && filtered != "" {
		return nil, shlyuz.ErrContentPolicy("The upstream's safety filter withheld every image: %s", upstream.Clip(filtered))
	}
	return out, nil
}
