package yandex

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Yandex's text embeddings (emb://<folder>/<model>/<version>): one text per
// call of textEmbedding, so the inputs go one after another; the reply
// carries numTokens as a string (int64 in proto JSON).

var _ shlyuz.Embedder = (*Provider)(nil)

const embeddingPath = "/foundationModels/v1/textEmbedding"

// embeddingBody is one textEmbedding request.
func embeddingBody(folder, model, text string, dims int) []byte {
	uri := model
	if !strings.Contains(model, "://") {
		if !strings.Contains(model, "/") {
			model += "/latest"
		}
		uri = "emb://" + folder + "/" + model
	}
	body := struct {
		ModelURI string `json:"modelUri"`
		Text     string `json:"text"`
		Dim      string `json:"dim,omitempty"`
	}{ModelURI: uri, Text: text}
	if dims > 0 {
		body.Dim = strconv.Itoa(dims)
	}
	b, _ := json.Marshal(body)
	return b
}

// Embed makes one textEmbedding call per text. Token ids are refused: Yandex
// reads text only.
func (p *Provider) Embed(ctx context.Context, req *shlyuz.EmbeddingRequest) (*shlyuz.EmbeddingResult, error) {
	if req.Tokens != nil {
		return nil, shlyuz.ErrInvalidValue("input", "This upstream embeds text only, not token ids.")
	}
	out := &shlyuz.EmbeddingResult{Vectors: make([][]float32, 0, len(req.Texts))}
	counted := true // every reply said its numTokens
	for _, text := range req.Texts {
		var res struct {
			Embedding []float32 `json:"embedding"`
			NumTokens string    `json:"numTokens"`
		}
		if err := p.callJSON(ctx, p.base+embeddingPath, embeddingBody(p.cfg.FolderID, req.Model, text, req.Dimensions), &res); err != nil {
			return nil, err
		}
		if len(res.Embedding) == 0 {
			return nil, upstream.Malformed("the reply holds no embedding")
		}
		n, err := strconv.ParseInt(res.NumTokens, 10, 64)
		if res.NumTokens != "" && (err != nil || n < 0) {
			return nil, upstream.Malformed("the reply's numTokens is not a count: " + strconv.Quote(res.NumTokens))
		}
		out.Vectors = append(out.Vectors, res.Embedding)
		out.PromptTokens = shlyuz.AddChecked(out.PromptTokens, n)
		counted = counted && res.NumTokens != ""
	}
	if !counted { // the gateway's count is billed rather than a part of the upstream's
		out.PromptTokens = 0
	}
	return out, nil
}
