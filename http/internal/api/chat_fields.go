package api

import (
	"encoding/json"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// EncodeFields is a request put in OpenAI's chat shape (the Anthropic and
// Responses APIs) as the chat call's fields: each of f's values as JSON, and
// msgs as the messages and tools as the tools when a fast path wrote them
// already (nil: none written).
func EncodeFields(f map[string]any, msgs, tools json.RawMessage) (map[string]json.RawMessage, *shlyuz.Error) {
	fields := make(map[string]json.RawMessage, len(f)+2)
	for k, v := range f {
		b, err := plainjson.Marshal(v)
		if err != nil {
			return nil, shlyuz.ErrInvalidValue(k, "The field %q cannot be read: %s", k, err.Error())
		}
		fields[k] = b
	}
	if msgs != nil {
		fields["messages"] = msgs
	}
	if tools != nil {
		fields["tools"] = tools
	}
	return fields, nil
}
