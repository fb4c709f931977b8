package yandex

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// YandexART (art://<folder>/<model>): an asynchronous operation, created with
// imageGenerationAsync and polled within the client's request (bounded by
// the upstream's time-out), one JPEG per operation. A prompt the model
// refuses comes back as an HTTP 400 at creation.

var _ shlyuz.ImageProvider = (*Provider)(nil)

const artPath = "/foundationModels/v1/imageGenerationAsync"

// artPoll is the first pause between polls of an operation; it doubles up to artPollMax.
const (
	artPoll    = 250 * time.Millisecond
	artPollMax = 2 * time.Second
)

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

// artOperation is a Yandex Cloud Operation of an image generation.
type artOperation struct {
	ID    string `json:"id"`
	Done  bool   `json:"done"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Response *struct {
		Image string `json:"image"`
	} `json:"response"`
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
	var op artOperation
	if err := p.artCall(ctx, http.MethodPost, p.base+artPath, artBody(p.cfg.FolderID, req), &op); err != nil {
		if e := shlyuz.AsError(err); e.Status == http.StatusBadRequest && refusedPrompt(e.Message) {
			return nil, shlyuz.ErrContentPolicy("The upstream refused the prompt: %s", e.Message)
		}
		return nil, err
	}
	for pause := artPoll; !op.Done; pause = min(2*pause, artPollMax) {
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, errs.Call(p.cfg.Name, ctx, nil, ctx.Err(), true)
		case <-t.C:
		}
		id := op.ID
		if err := p.artCall(ctx, http.MethodGet, p.base+"/operations/"+url.PathEscape(id), nil, &op); err != nil {
			return nil, err
		}
		if op.ID == "" {
			op.ID = id
		}
	}
	if op.Error != nil {
		return nil, shlyuz.ErrUpstream("The upstream failed the image generation (code %d): %s", op.Error.Code, upstream.Clip(op.Error.Message))
	}
	if op.Response == nil || op.Response.Image == "" {
		return nil, upstream.Malformed("the finished operation holds no image")
	}
	img, err := base64.StdEncoding.DecodeString(op.Response.Image)
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

// artCall sends one request of the image API or the operations API and
// decodes its JSON reply into out.
func (p *Provider) artCall(ctx context.Context, method, u string, body []byte, out any) error {
	send := upstream.Post(p.client, u, p.header, body, "")
	if method == http.MethodGet {
		send = func(ctx context.Context) (*http.Response, error) {
			r, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if err != nil {
				return nil, err
			}
			r.Header = p.header.Clone()
			r.Header.Del("Content-Type")
			return p.client.Do(r)
		}
	}
	c := &upstream.Call{Config: &p.cfg, Errors: errs, Send: send,
		Status: func(status int, h http.Header, body []byte) *shlyuz.Error {
			return statusError(p.cfg.Name, status, h, body, p.now())
		}}
	data, err := c.Reply(ctx, maxReplyBytes)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return upstream.Malformed("the reply is not an operation: " + strconv.Quote(upstream.Clip(string(data))))
	}
	return nil
}
