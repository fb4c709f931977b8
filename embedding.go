package shlyuz

import "context"

// EmbeddingRequest is an embeddings call on its way to one upstream: texts,
// or OpenAI's arrays of token ids for an upstream that reads them.
type EmbeddingRequest struct {
	Model      string    // the model's name at the upstream
	Texts      []string  // the inputs, when they are text
	Tokens     [][]int64 // the inputs, when they are token ids (Texts is then nil)
	Dimensions int       // 0: the model's own
	User       string
}

// EmbeddingResult is the upstream's vectors, one per input in their order.
type EmbeddingResult struct {
	Vectors      [][]float32
	PromptTokens int64 // 0: the upstream did not say (the gateway's count is billed)
}

// Embedder is an adapter that makes embeddings (the capability the
// embeddings API asks an upstream for).
type Embedder interface {
	Embed(ctx context.Context, req *EmbeddingRequest) (*EmbeddingResult, error)
}

// MakesEmbeddings reports whether the model is an embedding model.
func (m *Model) MakesEmbeddings() bool { return m.Outputs("embeddings") || m.Outputs("embedding") }
