package fake

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// gigaEmbeddingsPath is GigaChat's embeddings endpoint under the fake's prefix.
const gigaEmbeddingsPath = "/gigachat/api/v1/embeddings"

// gigaEmbeddings answers GigaChat's POST /api/v1/embeddings: model
// "Embeddings" (or EmbeddingsGigaR), input an array of strings; OpenAI's
// list shape but with usage.prompt_tokens on each item (a quarter of the
// text's characters, at least 1) and no usage at the top.
func (s *Server) gigaEmbeddings(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeGigaError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	if !s.gigaAuthorized(w, r) {
		return
	}
	body, ok := s.readBody(r)
	if !ok {
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Input) == 0 {
		writeGigaError(w, http.StatusBadRequest, "input must be a non-empty array of strings")
		return
	}
	if req.Model != "Embeddings" && req.Model != "EmbeddingsGigaR" {
		writeGigaError(w, http.StatusNotFound, "No such model")
		return
	}
	type usage struct {
		PromptTokens int `json:"prompt_tokens"`
	}
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
		Usage     usage     `json:"usage"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: req.Model}
	for i, text := range req.Input {
		n := utf8.RuneCountInString(text)
		out.Data = append(out.Data, item{"embedding", EmbeddingVector(n, EmbeddingDims), i, usage{max(1, (n+3)/4)}})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
