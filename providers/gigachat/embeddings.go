package gigachat

import (
	"context"
	"encoding/json"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// maxEmbeddingsReply bounds an embeddings reply.
const maxEmbeddingsReply = 64 << 20

var _ shlyuz.Embedder = (*Provider)(nil)

// embeddingBody is GigaChat's embeddings request: the model (Embeddings,
// EmbeddingsGigaR) and the texts; GigaChat takes no dimensions.
func embeddingBody(req *shlyuz.EmbeddingRequest) []byte {
	b, _ := json.Marshal(struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{req.Model, req.Texts})
	return b
}

// Embed calls POST {base_url}/embeddings. GigaChat reports usage on each
// item, not at the top: the items' prompt_tokens are added up.
func (p *Provider) Embed(ctx context.Context, req *shlyuz.EmbeddingRequest) (*shlyuz.EmbeddingResult, error) {
	switch {
	case req.Tokens != nil:
		return nil, shlyuz.ErrInvalidValue("input", "This upstream embeds text only, not token ids.")
	case req.Dimensions > 0:
		return nil, shlyuz.ErrInvalidValue("dimensions", "This upstream's embeddings have a fixed size: dimensions is not supported.")
	}
	b := embeddingBody(req)
	data, err := p.post(p.embedURL, func(context.Context) ([]byte, error) { return b, nil }, false).Reply(ctx, maxEmbeddingsReply)
	if err != nil {
		return nil, err
	}
	var w struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
			Usage     *struct {
				PromptTokens int64 `json:"prompt_tokens"`
			} `json:"usage"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, upstream.Malformed("the reply is not an embedding list")
	}
	n := len(req.Texts)
	out := &shlyuz.EmbeddingResult{Vectors: make([][]float32, n)}
	counted := true
	for _, d := range w.Data {
		if d.Index < 0 || d.Index >= n || out.Vectors[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, upstream.Malformed("the reply's embeddings do not match the inputs")
		}
		out.Vectors[d.Index] = d.Embedding
		if d.Usage == nil || d.Usage.PromptTokens < 0 {
			counted = false
			continue
		}
		out.PromptTokens = shlyuz.AddChecked(out.PromptTokens, d.Usage.PromptTokens)
	}
	for _, v := range out.Vectors {
		if v == nil {
			return nil, upstream.Malformed("the reply lacks an embedding")
		}
	}
	if !counted { // the gateway's count is billed rather than a part of GigaChat's
		out.PromptTokens = 0
	}
	return out, nil
}
