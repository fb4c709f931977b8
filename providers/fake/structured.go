package fake

import (
	"encoding/json"
	"strings"
)

// The fake honours structured output: a reply asked for as JSON is a JSON
// object, one asked for by a schema an instance of that schema, so that
// LangChain's withStructuredOutput and the AI SDK's generateObject can be
// shown working locally.

// structuredReply is the JSON text a reply asked for as JSON says: an
// instance of schema (a JSON Schema, as OpenAI's json_schema, Anthropic's
// output format and Gemini's responseSchema carry it), or with no schema
// {"answer":"tok0"}.
func structuredReply(schema json.RawMessage) string {
	if len(schema) == 0 || string(schema) == "null" {
		return `{"answer":"tok0"}`
	}
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return `{"answer":"tok0"}`
	}
	b, err := json.Marshal(instanceOf(root, root, 0))
	if err != nil {
		return `{"answer":"tok0"}`
	}
	return string(b)
}

// instanceOf is a value the schema s accepts: its const or first enum
// value, an object with every property it lists, an array of one item (or
// minItems), "tok0" for a string, its minimum for a number. root resolves
// "#/$defs/…" and "#/definitions/…" references.
func instanceOf(s, root map[string]any, depth int) any {
	if depth > 16 {
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		for _, p := range []string{"#/$defs/", "#/definitions/"} {
			if name, ok := strings.CutPrefix(ref, p); ok {
				defs, _ := root[strings.Trim(p[1:], "/")].(map[string]any)
				if d, ok := defs[name].(map[string]any); ok {
					return instanceOf(d, root, depth+1)
				}
			}
		}
		return nil
	}
	if v, ok := s["const"]; ok {
		return v
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok && m["type"] != "null" {
					return instanceOf(m, root, depth+1)
				}
			}
		}
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok {
		for _, t := range ts {
			if t, _ := t.(string); t != "null" && t != "" {
				typ = t
				break
			}
		}
	}
	typ = strings.ToLower(typ) // Gemini's Schema names its types in capitals
	if typ == "" && s["properties"] != nil {
		typ = "object"
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			if m, ok := p.(map[string]any); ok {
				out[k] = instanceOf(m, root, depth+1)
			}
		}
		return out
	case "array":
		n := 1
		if m, ok := s["minItems"].(float64); ok && int(m) > n {
			n = int(m)
		}
		items, _ := s["items"].(map[string]any)
		out := make([]any, n)
		for i := range out {
			out[i] = instanceOf(items, root, depth+1)
		}
		return out
	case "string":
		text := "tok0"
		if m, ok := s["minLength"].(float64); ok && int(m) > len(text) {
			text += strings.Repeat("x", int(m)-len(text))
		}
		return text
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		if m, ok := s["exclusiveMinimum"].(float64); ok {
			return m + 1
		}
		return 0
	case "boolean":
		return true
	case "null":
		return nil
	}
	return "tok0"
}

// forcedArguments are the arguments of a call of a tool the request forces:
// an instance of its parameters' schema when it has properties, else
// ToolArguments.
func forcedArguments(schema json.RawMessage) string {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return ToolArguments
	}
	if props, _ := root["properties"].(map[string]any); len(props) == 0 {
		return ToolArguments
	}
	return structuredReply(schema)
}
