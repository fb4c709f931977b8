package fake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// yandexEmbeddings answers Yandex's POST /foundationModels/v1/textEmbedding:
// one text per call, modelUri emb://<folder>/<model>/<version>, dim an
// optional string; the reply's embedding is EmbeddingDims (or dim) numbers
// that depend on the text's characters, as the OpenAI form's do, and
// numTokens a string: a quarter of the characters, at least 1.
func (s *Server) yandexEmbeddings(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeYandexError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	if !s.yandexAuthorized(w, r) {
		return
	}
	body, ok := s.readBody(r)
	if !ok {
		return
	}
	var req struct {
		ModelURI string `json:"modelUri"`
		Text     string `json:"text"`
		Dim      string `json:"dim"`
	}
	if json.Unmarshal(body, &req) != nil {
		writeYandexError(w, http.StatusBadRequest, "Request body is not valid JSON")
		return
	}
	dims := EmbeddingDims
	if req.Dim != "" {
		d, err := strconv.Atoi(req.Dim)
		if err != nil || d < 1 || d > 2048 {
			writeYandexError(w, http.StatusBadRequest, "Invalid dim")
			return
		}
		dims = d
	}
	switch {
	case !strings.HasPrefix(req.ModelURI, "emb://") || strings.Count(req.ModelURI, "/") != 4:
		writeYandexError(w, http.StatusBadRequest, "Invalid model URI: "+req.ModelURI)
		return
	case req.Text == "":
		writeYandexError(w, http.StatusBadRequest, "Text is empty")
		return
	}
	n := utf8.RuneCountInString(req.Text)
	out := struct {
		Embedding    []float32 `json:"embedding"`
		NumTokens    string    `json:"numTokens"`
		ModelVersion string    `json:"modelVersion"`
	}{EmbeddingVector(n, dims), strconv.Itoa(max(1, (n+3)/4)), "13.09.2023"}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
