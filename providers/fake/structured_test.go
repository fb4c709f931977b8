package fake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
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

// The weather schema every forcing case offers, as JSON Schema and as
// Gemini's Schema (types in capitals).
const (
	forcedSchema       = `{"type":"object","properties":{"city":{"type":"string","enum":["Paris","Rome"]},"days":{"type":"integer","minimum":3}},"required":["city","days"]}`
	forcedGeminiSchema = `{"type":"OBJECT","properties":{"city":{"type":"STRING","enum":["Paris","Rome"]},"days":{"type":"INTEGER","minimum":3}},"required":["city","days"]}`
)

// forcedOK reports whether args satisfy forcedSchema.
func forcedOK(args []byte) bool {
	var v struct {
		City string
		Days *float64
	}
	return json.Unmarshal(args, &v) == nil && v.City == "Paris" && v.Days != nil && *v.Days >= 3
}

// rawPost posts body to the fake's root + path and decodes the JSON reply.
func rawPost(t *testing.T, url, path, body string, header map[string]string, out any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(url, "/v1")+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || json.Unmarshal(raw, out) != nil {
		t.Fatalf("%s: %d %s", path, resp.StatusCode, raw)
	}
}

// A forced tool is called with arguments its schema accepts, and a JSON
// reply asked for by schema satisfies it, in each protocol's own terms:
// OpenAI's tool_choice, Anthropic's tool_choice and output_config.format
// (and the beta's output_format), Gemini's functionCallingConfig ANY and
// responseMimeType with responseSchema or responseJsonSchema.
func TestForcedToolsAndSchemasInEveryProtocol(t *testing.T) {
	_, url := start(t, fake.Options{})
	t.Run("openai tool_choice", func(t *testing.T) {
		for _, choice := range []string{`"required"`, `{"type":"function","function":{"name":"plan"}}`} {
			var r struct {
				Choices []struct {
					Message struct {
						ToolCalls []struct {
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					}
				}
			}
			rawPost(t, url, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"plan","parameters":`+forcedSchema+`}}],"tool_choice":`+choice+`}`, nil, &r)
			if len(r.Choices) != 1 || len(r.Choices[0].Message.ToolCalls) != 1 || !forcedOK([]byte(r.Choices[0].Message.ToolCalls[0].Function.Arguments)) {
				t.Fatalf("%s: %+v", choice, r)
			}
		}
	})
	anthropic := map[string]string{"anthropic-version": "2023-06-01"}
	t.Run("anthropic tool_choice", func(t *testing.T) {
		for _, choice := range []string{`{"type":"any"}`, `{"type":"tool","name":"plan"}`} {
			var r struct {
				Content []struct {
					Type  string
					Input json.RawMessage
				}
				StopReason string `json:"stop_reason"`
			}
			rawPost(t, url, "/v1/messages", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"plan","input_schema":`+forcedSchema+`}],"tool_choice":`+choice+`}`, anthropic, &r)
			if len(r.Content) != 1 || r.Content[0].Type != "tool_use" || !forcedOK(r.Content[0].Input) || r.StopReason != "tool_use" {
				t.Fatalf("%s: %+v", choice, r)
			}
		}
	})
	t.Run("anthropic output format", func(t *testing.T) {
		for _, member := range []string{`"output_config":{"format":{"type":"json_schema","schema":` + forcedSchema + `}}`, `"output_format":{"type":"json_schema","schema":` + forcedSchema + `}`} {
			var r struct {
				Content []struct{ Type, Text string }
			}
			rawPost(t, url, "/v1/messages", `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi"}],`+member+`}`, anthropic, &r)
			if len(r.Content) != 1 || r.Content[0].Type != "text" || !forcedOK([]byte(r.Content[0].Text)) {
				t.Fatalf("%s: %+v", member, r)
			}
		}
	})
	type geminiReply struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text         string
					FunctionCall *struct {
						Name string
						Args json.RawMessage
					}
				}
			}
		}
	}
	t.Run("gemini functionCallingConfig ANY", func(t *testing.T) {
		for _, decl := range []string{`"parameters":` + forcedGeminiSchema, `"parametersJsonSchema":` + forcedSchema} {
			var r geminiReply
			rawPost(t, url, "/v1beta/models/gemini-2.5-flash:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"plan",`+decl+`}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["plan"]}}}`, nil, &r)
			if len(r.Candidates) != 1 || len(r.Candidates[0].Content.Parts) != 1 || r.Candidates[0].Content.Parts[0].FunctionCall == nil || !forcedOK(r.Candidates[0].Content.Parts[0].FunctionCall.Args) {
				t.Fatalf("%s: %+v", decl, r)
			}
		}
	})
	t.Run("gemini response schema", func(t *testing.T) {
		for _, schema := range []string{`"responseSchema":` + forcedGeminiSchema, `"responseJsonSchema":` + forcedSchema} {
			for _, method := range []string{":generateContent", ":streamGenerateContent"} {
				body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"responseMimeType":"application/json",` + schema + `}}`
				var text strings.Builder
				if method == ":generateContent" {
					var r geminiReply
					rawPost(t, url, "/v1beta/models/gemini-2.5-flash"+method, body, nil, &r)
					text.WriteString(r.Candidates[0].Content.Parts[0].Text)
				} else {
					var rs []geminiReply
					rawPost(t, url, "/v1beta/models/gemini-2.5-flash"+method, body, nil, &rs)
					for _, r := range rs {
						text.WriteString(r.Candidates[0].Content.Parts[0].Text)
					}
				}
				if !forcedOK([]byte(text.String())) {
					t.Fatalf("%s%s: %q", schema, method, text.String())
				}
			}
		}
	})
}
