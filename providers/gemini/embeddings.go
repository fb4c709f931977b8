package gemini

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

var _ shlyuz.Embedder = (*Provider)(nil)

// Embed calls the model's :batchEmbedContents, one request per text. Gemini
// reads text only (token id arrays are a 400) and reports no usage: the
// gateway bills its own count.
func (p *Provider) Embed(ctx context.Context, req *shlyuz.EmbeddingRequest) (*shlyuz.EmbeddingResult, error) {
	if req.Tokens != nil {
		return nil, shlyuz.ErrInvalidValue("input", "Gemini embeds text, not token ids: send the input as strings.")
	}
	model := strings.TrimPrefix(req.Model, "models/")
	type embedRequest struct {
		Model   string `json:"model"`
		Content struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"content"`
		OutputDimensionality int `json:"outputDimensionality,omitempty"`
	}
	reqs := make([]embedRequest, len(req.Texts))
	for i, t := range req.Texts {
		reqs[i].Model = "models/" + model
		reqs[i].Content.Parts = []struct {
			Text string `json:"text"`
		}{{Text: t}}
		reqs[i].OutputDimensionality = req.Dimensions
	}
	body, err := json.Marshal(map[string]any{"requests": reqs})
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	c := &upstream.Call{
		Config: &p.cfg,
		Errors: errs,
		Send:   upstream.Post(p.client, p.models+url.PathEscape(model)+":batchEmbedContents", p.header, body, upstream.Accept(false)),
		Status: func(status int, h http.Header, body []byte) *shlyuz.Error {
			return statusError(p.cfg.Name, model, status, h, body, p.now())
		},
	}
	data, err := c.Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	var w struct {
		Embeddings []struct {
			Values []float32 `json:"values"`
		} `json:"embeddings"`
	}
	if err := json.Unmarshal(data, &w); err != nil || len(w.Embeddings) != len(req.Texts) {
		return nil, upstream.Malformed("the reply's embeddings do not match the inputs")
	}
	out := &shlyuz.EmbeddingResult{Vectors: make([][]float32, len(w.Embeddings))}
	for i, e := range w.Embeddings {
		if len(e.Values) == 0 {
			return nil, upstream.Malformed("the reply lacks an embedding")
		}
		out.Vectors[i] = e.Values
	}
	return out, nil
}
