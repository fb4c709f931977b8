package http

import (
	"bytes"
	"encoding/json"
	"errors"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/tokens"
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
func parseEmbeddings(body []byte) (in *embeddingsInput, texts []string, ids [][]int64, reserve int64, err *shlyuz.Error) {
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
	// The form is told by the first bytes, so the input is decoded once (a
	// failed decode of a large array would still walk all of it).
	var derr error
	switch inputForm(in.Input) {
	case '"':
		var s string
		derr = json.Unmarshal(in.Input, &s)
		texts = []string{s}
	case 's':
		derr = json.Unmarshal(in.Input, &texts)
	case 'i':
		var one []int64
		derr = json.Unmarshal(in.Input, &one)
		ids = [][]int64{one}
	case 'a':
		derr = json.Unmarshal(in.Input, &ids)
	default:
		derr = errors.New("not an array or a string")
	}
	if derr != nil {
		return nil, nil, nil, 0, shlyuz.ErrInvalidValue("input", "input is a string, an array of strings, an array of token ids or an array of such arrays.")
	}
	n := len(texts) + len(ids)
	if n == 0 || n > maxEmbeddingInputs {
		return nil, nil, nil, 0, shlyuz.ErrInvalidValue("input", "input holds 1 to %d items, not %d.", maxEmbeddingInputs, n)
	}
	for _, t := range texts {
		if t == "" {
			return nil, nil, nil, 0, shlyuz.ErrInvalidValue("input", "input must not hold an empty string.")
		}
	}
	for _, t := range ids {
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
		est, e := tokens.EstimatePrompt(raw)
		if e != nil {
			return nil, nil, nil, 0, shlyuz.ErrInvalidValue("input", "The input cannot be read: %s", e.Error())
		}
		reserve = est.Reserve
	}
	return in, texts, ids, max(reserve, 1), nil
}

// inputForm is the form of an embeddings input by its first bytes: '"' a
// string, 's' an array of strings (or an empty array), 'i' an array of token
// ids, 'a' an array of token arrays, 0 none of them.
func inputForm(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	switch {
	case len(raw) == 0:
		return 0
	case raw[0] == '"':
		return '"'
	case raw[0] != '[':
		return 0
	}
	inner := bytes.TrimLeft(raw[1:], " \t\r\n")
	switch {
	case len(inner) == 0:
		return 0
	case inner[0] == '"' || inner[0] == ']':
		return 's'
	case inner[0] == '[':
		return 'a'
	case inner[0] == '-' || '0' <= inner[0] && inner[0] <= '9':
		return 'i'
	}
	return 0
}
