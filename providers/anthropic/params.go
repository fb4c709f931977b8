package anthropic

import (
	"encoding/json"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// options are what the request decided about reading the reply.
type options struct {
	clientUsage bool   // the client asked for usage in the stream
	jsonTool    string // the forced tool whose input is response_format's JSON; "" when none
	reasoning   bool   // thinking is on and its text goes to the client
}

// wireThinking is Anthropic's extended thinking.
type wireThinking struct {
	Type         string `json:"type"` // enabled
	BudgetTokens int64  `json:"budget_tokens"`
}

// Anthropic's thinking budget range.
const (
	minThinkingBudget = 1024
	maxThinkingBudget = 32000
)

// translateReasoning turns reasoning (or reasoning_effort) into a thinking
// budget below max_tokens: max_tokens when given, else the effort's share of
// max_tokens (medium when only enabled), within 1,024–32,000 tokens. With
// thinking on, the sampling parameters Anthropic refuses beside it are
// dropped, as OpenRouter does. It reports whether the reasoning is shown.
func translateReasoning(f map[string]json.RawMessage, w *wireRequest) (shown bool, err error) {
	var r shlyuz.Reasoning
	if v := f["reasoning"]; len(v) > 0 && !isNull(v) {
		if json.Unmarshal(v, &r) != nil {
			return false, shlyuz.ErrInvalidValue("reasoning", `reasoning is an object such as {"effort":"high"} or {"max_tokens":2000}.`)
		}
	}
	if v := f["reasoning_effort"]; r.Effort == "" && len(v) > 0 && v[0] == '"' {
		r.Effort = upstream.JSONText(v)
	}
	on := r.MaxTokens > 0 || r.Effort != "" || (r.Enabled != nil && *r.Enabled)
	if r.Off() || !on {
		return false, nil
	}
	budget := r.MaxTokens
	if budget <= 0 {
		effort := r.Effort
		if effort == "" {
			effort = "medium"
		}
		var ok bool
		if budget, ok = shlyuz.ReasoningBudget(effort, w.MaxTokens, minThinkingBudget, maxThinkingBudget); !ok {
			return false, shlyuz.ErrInvalidValue("reasoning", "reasoning.effort is one of minimal, low, medium, high, xhigh, none; not %q.", r.Effort)
		}
	}
	budget = max(budget, minThinkingBudget)
	if budget >= w.MaxTokens {
		budget = w.MaxTokens - 1
	}
	if budget < minThinkingBudget {
		return false, shlyuz.ErrInvalidValue("reasoning", "Reasoning on this model needs a thinking budget of at least %d tokens below max_tokens: set max_tokens above %d.", minThinkingBudget, minThinkingBudget)
	}
	w.Thinking = &wireThinking{Type: "enabled", BudgetTokens: budget}
	w.Temperature, w.TopK = nil, nil
	if w.TopP != nil && *w.TopP < 0.95 {
		w.TopP = nil
	}
	if w.ToolChoice != nil && (w.ToolChoice.Type == "any" || w.ToolChoice.Type == "tool") {
		w.ToolChoice.Type, w.ToolChoice.Name = "auto", "" // thinking allows auto and none only
	}
	return !r.Exclude, nil
}

// jsonToolName is the forced tool that carries a response_format's JSON
// when the schema has no name of its own.
const jsonToolName = "json_response"

// translateResponseFormat serves response_format json_schema (and
// json_object) with a forced tool whose input schema is the schema: the
// tool's input is the reply's JSON text. It returns the tool's name.
func translateResponseFormat(f map[string]json.RawMessage, w *wireRequest) (string, error) {
	v := f["response_format"]
	if len(v) == 0 || isNull(v) {
		return "", nil
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if json.Unmarshal(v, &rf) != nil {
		return "", shlyuz.ErrInvalidValue("response_format", `response_format is an object such as {"type":"json_schema","json_schema":{…}}.`)
	}
	tool := wireTool{Name: jsonToolName, Description: "Answer with a JSON object.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	switch rf.Type {
	case "", "text":
		return "", nil
	case "json_object":
	case "json_schema":
		if js := rf.JSONSchema; js != nil {
			if js.Name != "" && len(js.Name) <= 64 && toolID(js.Name) == js.Name {
				tool.Name = js.Name
			}
			if js.Description != "" {
				tool.Description = js.Description
			}
			if len(js.Schema) > 0 && !isNull(js.Schema) {
				tool.InputSchema = js.Schema
			}
		}
	default:
		return "", shlyuz.ErrInvalidValue("response_format", "response_format.type is text, json_object or json_schema, not %q.", rf.Type)
	}
	for _, t := range w.Tools {
		if t.Name == tool.Name {
			return "", shlyuz.ErrInvalidValue("response_format", "A tool is named %q like the response format's schema: rename one.", tool.Name)
		}
	}
	w.Tools = append(w.Tools, tool)
	switch {
	case len(w.Tools) > 1:
		w.ToolChoice = &wireToolChoice{Type: "any"} // a client tool, or the answer
	default:
		w.ToolChoice = &wireToolChoice{Type: "tool", Name: tool.Name}
	}
	return tool.Name, nil
}
