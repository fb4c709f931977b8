package http

import (
	"encoding/json"

	shlyuz "github.com/shlyuz/shlyuz"
)

// embeddingsInput is OpenAI's embeddings request, with OpenRouter's provider preferences.
type embeddingsInput struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"` // float (default) or base64
	Dimensions     *int            `json:"dimensions"`
	User           string          `json:"user"`
	Provider       *providerPrefs  `json:"provider"`
}

// maxEmbeddingInputs is OpenAI's limit of inputs in one request.
const maxEmbeddingInputs = 2048

// parseEmbeddings reads the request: input as a string, strings, token ids
// or arrays of token ids (texts or tokens set, the other nil), and how many
// prompt tokens to reserve for.
func parseEmbeddings(body []byte) (in *embeddingsInput, texts []string, tokens [][]int64, reserve int64, err *shlyuz.Error) {
	in = &embeddingsInput{}
	if e := json.Unmarshal(body, in); e != nil {
		return nil, nil, nil, 0, shlyuz.ErrInvalidJSON(e.Error())
	}
	switch {
	case in.Model == "":
		return nil, nil, nil, 0, shlyuz.ErrMissingField("model")
	case len(in.Input) == 0 || isNull(in.Input):
		return nil, nil, nil, 0, shlyuz.ErrMissingField("input")
	case in.EncodingFormat != "" && in.EncodingFormat != "float" && in.EncodingFormat != "base64":
		return nil, nil, nil, 0, shlyuz.ErrInvalidValue("encoding_format", "encoding_format is float or base64, not %q.", in.EncodingFormat)
	case in.Dimensions != nil && *in.Dimensions < 1:
		return nil, nil, nil, 0, shlyuz.ErrInvalidValue("dimensions", "dimensions must be at least 1.")
	}
	// Each form into its own variable: a failed decode leaves a partial value.
	var (
		s      string
		list   []string
		ids    []int64
		arrays [][]int64
	)
	switch {
	case json.Unmarshal(in.Input, &s) == nil:
		texts = []string{s}
	case json.Unmarshal(in.Input, &list) == nil:
		texts = list
	case json.Unmarshal(in.Input, &ids) == nil:
		tokens = [][]int64{ids}
	case json.Unmarshal(in.Input, &arrays) == nil:
		tokens = arrays
	default:
		return nil, nil, nil, 0, shlyuz.ErrInvalidValue("input", "input is a string, an array of strings, an array of token ids or an array of such arrays.")
	}
	n := len(texts) + len(tokens)
	if n == 0 || n > maxEmbeddingInputs {
		return nil, nil, nil, 0, shlyuz.ErrInvalidValue("input", "input holds 1 to %d items, not %d.", maxEmbeddingInputs, n)
	}
	for _, t := range texts {
		if t == "" {
			return nil, nil, nil, 0, shlyuz.ErrInvalidValue("input", "input must not hold an empty string.")
		}
	}
	for _, t := range tokens {
		if len(t) == 0 {
			return nil, nil, nil, 0, shlyuz.ErrInvalidValue("input", "input must not hold an empty token array.")
		}
		reserve += int64(len(t))
	}
	if texts != nil {
		msgs := make([]map[string]string, len(texts))
		for i, t := range texts {
			msgs[i] = map[string]string{"role": "user", "content": t}
		}
		raw, _ := json.Marshal(msgs)
		est, e := shlyuz.EstimatePrompt(raw)
		if e != nil {
			return nil, nil, nil, 0, shlyuz.ErrInvalidValue("input", "The input cannot be read: %s", e.Error())
		}
		reserve = est.Reserve
	}
	return in, texts, tokens, max(reserve, 1), nil
}
