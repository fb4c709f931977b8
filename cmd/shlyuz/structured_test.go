package main

import (
	"encoding/json"
	"net/http"
	"testing"
)

// Anthropic's structured output on /messages: output_config.format goes as
// it came to an Anthropic upstream and as response_format to the others;
// either way the reply's text is an object the schema accepts.
func TestMessagesOutputConfigThroughTheFake(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"name": map[string]any{"type": "string"}, "age": map[string]any{"type": "integer", "minimum": 1}},
		"required": []string{"name", "age"}, "additionalProperties": false}
	for _, model := range []string{"claude/model", "test/model", "gemini/model"} {
		t.Run(model, func(t *testing.T) {
			body := map[string]any{"model": model, "max_tokens": 256,
				"messages":      []map[string]any{{"role": "user", "content": "Describe a person."}},
				"output_config": map[string]any{"format": map[string]any{"type": "json_schema", "schema": schema}}}
			var r struct {
				Content []struct{ Type, Text string }
			}
			if st := call(t, h.base, http.MethodPost, "/api/v1/messages", key, body, &r); st != 200 || len(r.Content) != 1 {
				t.Fatalf("%d %+v", st, r)
			}
			var person struct {
				Name *string
				Age  *float64
			}
			if err := json.Unmarshal([]byte(r.Content[0].Text), &person); err != nil || person.Name == nil || person.Age == nil || *person.Age < 1 {
				t.Fatalf("text %q: %v", r.Content[0].Text, err)
			}
		})
	}
}
