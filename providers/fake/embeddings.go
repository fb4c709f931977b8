package fake

import (
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"
)

// EmbeddingDims is the length of the fake's vectors when the request sets no dimensions.
const EmbeddingDims = 8

// embeddings answers OpenAI's POST /embeddings: input as a string, strings,
// token ids or arrays of them; vectors of EmbeddingDims (or dimensions)
// floats that depend on the input; usage.prompt_tokens is a quarter of each
// text's characters (at least 1) or its token count. A text holding
// MissingEmbeddingMarker gets no vector: a reply one short, as a faulty
// upstream's.
func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "", "Only POST is allowed here.")
		return
	}
	if !s.authorized(w, r) {
		return
	}
	body, ok := s.readBody(r)
	if !ok {
		return
	}
	var req struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		Dimensions     *int            `json:"dimensions"`
		EncodingFormat string          `json:"encoding_format"`
	}
	if json.Unmarshal(body, &req) != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "", "We could not parse the JSON body of your request.")
		return
	}
	lens, ok := embeddingInputs(req.Input)
	switch {
	case req.Model == "":
		writeError(w, http.StatusBadRequest, "invalid_request_error", "model", "", "you must provide a model parameter")
		return
	case !ok:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "input", "", "'input' : input must be a string, an array of strings, or token arrays, and not empty")
		return
	case req.Dimensions != nil && (*req.Dimensions < 1 || *req.Dimensions > 3072):
		writeError(w, http.StatusBadRequest, "invalid_request_error", "dimensions", "", "Invalid value for 'dimensions'.")
		return
	case req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64":
		writeError(w, http.StatusBadRequest, "invalid_request_error", "encoding_format", "", "Invalid value for 'encoding_format'.")
		return
	}
	dims := EmbeddingDims
	if req.Dimensions != nil {
		dims = *req.Dimensions
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
		Usage  struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	}{Object: "list", Model: req.Model}
	for i, n := range lens {
		if n.missing {
			continue
		}
		out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: EmbeddingVector(n.chars, dims)})
		out.Usage.PromptTokens += n.tokens
	}
	out.Usage.TotalTokens = out.Usage.PromptTokens
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// MissingEmbeddingMarker in an input text leaves that input's vector out of
// the OpenAI-form reply.
const MissingEmbeddingMarker = "[[fake-embedding-missing]]"

// EmbeddingVector is the fake's vector for an input of that many characters
// (or token ids): element j is ((n+j) mod 10) / 10.
func EmbeddingVector(n, dims int) []float32 {
	v := make([]float32, dims)
	for j := range v {
		v[j] = float32((n+j)%10) / 10
	}
	return v
}

type embeddingInput struct {
	chars, tokens int
	missing       bool // the text holds MissingEmbeddingMarker
}

// embeddingInputs reads OpenAI's input forms; ok is false for an empty or mistyped one.
func embeddingInputs(raw json.RawMessage) ([]embeddingInput, bool) {
	text := func(s string) embeddingInput {
		n := utf8.RuneCountInString(s)
		return embeddingInput{chars: n, tokens: max(1, (n+3)/4), missing: strings.Contains(s, MissingEmbeddingMarker)}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []embeddingInput{text(s)}, s != ""
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		out := make([]embeddingInput, len(list))
		for i, x := range list {
			if x == "" {
				return nil, false
			}
			out[i] = text(x)
		}
		return out, len(out) > 0
	}
	var ids []int64
	if json.Unmarshal(raw, &ids) == nil {
		return []embeddingInput{{chars: len(ids), tokens: len(ids)}}, len(ids) > 0
	}
	var arrays [][]int64
	if json.Unmarshal(raw, &arrays) == nil {
		out := make([]embeddingInput, len(arrays))
		for i, a := range arrays {
			if len(a) == 0 {
				return nil, false
			}
			out[i] = embeddingInput{chars: len(a), tokens: len(a)}
		}
		return out, len(out) > 0
	}
	return nil, false
}

// geminiEmbeddings answers Gemini's :batchEmbedContents: one vector per
// request, of EmbeddingDims (or outputDimensionality) floats that depend on
// the text's characters, as the OpenAI form's do; Gemini reports no usage.
func (s *Server) geminiEmbeddings(w http.ResponseWriter, r *http.Request) {
	if !s.geminiAuthorized(w, r) {
		return
	}
	body, ok := s.readBody(r)
	if !ok {
		return
	}
	var req struct {
		Requests []struct {
			Model   string `json:"model"`
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
			OutputDimensionality int `json:"outputDimensionality"`
		} `json:"requests"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Requests) == 0 {
		writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "requests: at least one embed request is required.", "")
		return
	}
	type values struct {
		Values []float32 `json:"values"`
	}
	out := struct {
		Embeddings []values `json:"embeddings"`
	}{}
	for _, q := range req.Requests {
		if len(q.Content.Parts) == 0 || q.Content.Parts[0].Text == "" || !strings.HasPrefix(q.Model, "models/") {
			writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Each request needs its model (models/…) and a text part.", "")
			return
		}
		dims := EmbeddingDims
		if q.OutputDimensionality > 0 {
			dims = q.OutputDimensionality
		}
		out.Embeddings = append(out.Embeddings, values{EmbeddingVector(utf8.RuneCountInString(q.Content.Parts[0].Text), dims)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
