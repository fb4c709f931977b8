package http

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/http/openai"
	"github.com/shlyuz/shlyuz/http/responses"
)

// TestToolDefinitionsAreReserved: on every client protocol the reservation counts tool definitions
// that tokenizers split finely (a run of punctuation no vocabulary holds) at a token per byte at least
// (no tokenizer makes more tokens than bytes), so a request whose tools are most of its prompt can
// never be charged past what was reserved.
func TestToolDefinitionsAreReserved(t *testing.T) {
	desc := strings.Repeat("{[,]}", 2000) // 10,000 bytes that tokenizers split finely
	noHeader := func(string, ...string) string { return "" }
	for _, tc := range []struct {
		name  string
		body  string
		parse func([]byte) (int64, error)
	}{
		{"chat", fmt.Sprintf(`{"model":"test/model","max_tokens":5,"messages":[{"role":"user","content":"hi"}],
			"tools":[{"type":"function","function":{"name":"f","description":%q,"parameters":{"type":"object"}}}]}`, desc),
			func(b []byte) (int64, error) {
				c, err := openai.ParseChat(b)
				if err != nil {
					return 0, err
				}
				return c.Prompt.Reserve, nil
			}},
		{"messages", fmt.Sprintf(`{"model":"test/model","max_tokens":5,"messages":[{"role":"user","content":"hi"}],
			"tools":[{"name":"f","description":%q,"input_schema":{"type":"object"}}]}`, desc),
			func(b []byte) (int64, error) {
				c, err := anthropic.ParseMessages(b, noHeader, false)
				if err != nil {
					return 0, err
				}
				return c.Prompt.Reserve, nil
			}},
		{"responses", fmt.Sprintf(`{"model":"test/model","max_output_tokens":5,"input":"hi",
			"tools":[{"type":"function","name":"f","description":%q,"parameters":{"type":"object"}}]}`, desc),
			func(b []byte) (int64, error) {
				c, _, err := responses.ParseResponses(b)
				if err != nil {
					return 0, err
				}
				return c.Prompt.Reserve, nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.parse([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if got < int64(len(desc)) {
				t.Fatalf("reserved %d prompt tokens for %d bytes of tool description", got, len(desc))
			}
		})
	}
}
