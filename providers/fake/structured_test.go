package fake_test

import (
	"encoding/json"
	"testing"

	"github.com/shlyuz/shlyuz/providers/fake"
)

// Structured output asked for is honoured: json_object gives a JSON object,
// json_schema an object with the schema's properties of their types (as
// LangChain's withStructuredOutput and the AI SDK's generateObject parse
// it), tool_choice "none" gives text and a named function calls that one.
func TestChatHonoursWhatIsAsked(t *testing.T) {
	_, url := start(t, fake.Options{})
	schema := `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":1},"tags":{"type":"array","items":{"type":"string"}},"kind":{"enum":["a","b"]},"nested":{"$ref":"#/$defs/N"}},"required":["name","age","tags","kind","nested"],"additionalProperties":false,"$defs":{"N":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}`
	tools := `"tools":[{"type":"function","function":{"name":"first"}},{"type":"function","function":{"name":"second"}}]`
	for _, tc := range []struct {
		name, body string
		check      func(content string, calls []string) bool
	}{
		{"json_object", `"response_format":{"type":"json_object"}`, func(c string, _ []string) bool {
			var v map[string]any
			return json.Unmarshal([]byte(c), &v) == nil
		}},
		{"json_schema", `"response_format":{"type":"json_schema","json_schema":{"name":"p","strict":true,"schema":` + schema + `}}`, func(c string, _ []string) bool {
			var v struct {
				Name   *string  `json:"name"`
				Age    *float64 `json:"age"`
				Tags   []string `json:"tags"`
				Kind   string   `json:"kind"`
				Nested *struct {
					OK *bool `json:"ok"`
				} `json:"nested"`
			}
			return json.Unmarshal([]byte(c), &v) == nil && v.Name != nil && v.Age != nil && *v.Age >= 1 && *v.Age == float64(int(*v.Age)) &&
				len(v.Tags) > 0 && (v.Kind == "a" || v.Kind == "b") && v.Nested != nil && v.Nested.OK != nil
		}},
		{"tool_choice none", tools + `,"tool_choice":"none"`, func(c string, calls []string) bool { return c != "" && len(calls) == 0 }},
		{"tool_choice named", tools + `,"tool_choice":{"type":"function","function":{"name":"second"}}`, func(_ string, calls []string) bool {
			return len(calls) == 1 && calls[0] == "second"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, url, `{"model":"m","messages":[{"role":"user","content":"hi"}],`+tc.body+`}`, nil)
			var r struct {
				Choices []struct {
					Message struct {
						Content   string
						ToolCalls []struct {
							Function struct{ Name string }
						} `json:"tool_calls"`
					}
				}
			}
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != 200 || len(r.Choices) != 1 {
				t.Fatalf("status %d: %v", resp.StatusCode, err)
			}
			m := r.Choices[0].Message
			var calls []string
			for _, c := range m.ToolCalls {
				calls = append(calls, c.Function.Name)
			}
			if !tc.check(m.Content, calls) {
				t.Fatalf("content %q, calls %v", m.Content, calls)
			}
		})
	}
}
