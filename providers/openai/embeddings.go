package openai

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// maxEmbeddingsReply bounds an embeddings reply (2,048 inputs of 3,072 floats as text).
const maxEmbeddingsReply = 256 << 20

var _ shlyuz.Embedder = (*Provider)(nil)

// Embed calls POST {base_url}/embeddings, always asking for floats: the
// gateway encodes base64 itself when its client asks for it.
func (p *Provider) Embed(ctx context.Context, req *shlyuz.EmbeddingRequest) (*shlyuz.EmbeddingResult, error) {
	body := map[string]any{"model": req.Model, "encoding_format": "float"}
	if req.Tokens != nil {
		body["input"] = req.Tokens
	} else {
		body["input"] = req.Texts
	}
	if req.Dimensions > 0 {
		body["dimensions"] = req.Dimensions
	}
	if req.User != "" {
		body["user"] = req.User
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	url := strings.TrimRight(p.cfg.BaseURL, "/") + "/embeddings"
	data, err := p.callTo(url, p.header, b, "application/json").Reply(ctx, maxEmbeddingsReply)
	if err != nil {
		return nil, err
	}
	var w struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
		Usage struct {
			PromptTokens int64 `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, upstream.Malformed("the reply is not an embedding list")
	}
	n := len(req.Texts) + len(req.Tokens)
	out := &shlyuz.EmbeddingResult{Vectors: make([][]float32, n), PromptTokens: w.Usage.PromptTokens}
	for _, d := range w.Data {
		if d.Index < 0 || d.Index >= n || out.Vectors[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, upstream.Malformed("the reply's embeddings do not match the inputs")
		}
		out.Vectors[d.Index] = d.Embedding
	}
	for _, v := range out.Vectors {
		if v == nil {
			return nil, upstream.Malformed("the reply lacks an embedding")
		}
	}
	return out, nil
}
