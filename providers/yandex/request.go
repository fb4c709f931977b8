package yandex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// The native request body (Foundation Models v1 CompletionRequest).
type wireRequest struct {
	ModelURI          string          `json:"modelUri"`
	CompletionOptions wireOptions     `json:"completionOptions"`
	Messages          []wireMessage   `json:"messages"`
	Tools             []wireTool      `json:"tools,omitempty"`
	ToolChoice        *wireToolChoice `json:"toolChoice,omitempty"`
	ParallelToolCalls *bool           `json:"parallelToolCalls,omitempty"`
	JSONObject        bool            `json:"jsonObject,omitempty"`
	JSONSchema        *wireJSONSchema `json:"jsonSchema,omitempty"`
}

type wireOptions struct {
	Stream           bool                  `json:"stream"`
	Temperature      *float64              `json:"temperature,omitempty"`
	MaxTokens        string                `json:"maxTokens,omitempty"` // int64 as a JSON string
	ReasoningOptions *wireReasoningOptions `json:"reasoningOptions,omitempty"`
}

type wireReasoningOptions struct {
	Mode string `json:"mode"`
}

// wireMessage holds exactly one of Text, ToolCallList, ToolResultList.
type wireMessage struct {
	Role           string              `json:"role"`
	Text           *string             `json:"text,omitempty"`
	ToolCallList   *wireToolCallList   `json:"toolCallList,omitempty"`
	ToolResultList *wireToolResultList `json:"toolResultList,omitempty"`
}

type wireToolCallList struct {
	ToolCalls []wireToolCall `json:"toolCalls"`
}

type wireToolCall struct {
	FunctionCall *wireFunctionCall `json:"functionCall,omitempty"`
}

type wireFunctionCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"` // a JSON object, not a string
}

type wireToolResultList struct {
	ToolResults []wireToolResult `json:"toolResults"`
}

type wireToolResult struct {
	FunctionResult wireFunctionResult `json:"functionResult"`
}

type wireFunctionResult struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

type wireTool struct {
	Function wireFunctionTool `json:"function"`
}

type wireFunctionTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict,omitempty"`
}

type wireToolChoice struct {
	Mode         string `json:"mode,omitempty"`
	FunctionName string `json:"functionName,omitempty"`
}

type wireJSONSchema struct {
	Schema json.RawMessage `json:"schema"`
}

// The client's OpenAI request, the parts the adapter reads.
type oaiMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  []oaiToolCall   `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type oaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"` // a JSON string; some clients send the object
	} `json:"function"`
}

type oaiPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type oaiTool struct {
	Type     string `json:"type"`
	Function *struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      *bool           `json:"strict"`
	} `json:"function"`
}

// emptyParameters is the schema of a function that takes no arguments.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// modelURI is the model's URI: gpt://<folder>/<model>/<version>, "latest"
// when the model names no version; a full gpt:// URI is used as it is.
func modelURI(folder, model string) string {
	if strings.HasPrefix(model, "gpt://") {
		return model
	}
	if !strings.Contains(model, "/") {
		model += "/latest"
	}
	return "gpt://" + folder + "/" + model
}

// buildBody turns the client's OpenAI request into the native request body.
// The stream argument, not req.Stream, decides, so that Chat never streams.
// A request the native API cannot serve (images, n > 1, temperature over 1,
// malformed messages) gets a 400 *shlyuz.Error.
func buildBody(req *shlyuz.UpstreamRequest, folder string, stream bool) ([]byte, error) {
	w := wireRequest{
		ModelURI:          modelURI(folder, req.UpstreamModel),
		CompletionOptions: wireOptions{Stream: stream},
	}
	f := req.Fields

	if err := checkN(f["n"]); err != nil {
		return nil, err
	}
	if v := f["temperature"]; present(v) {
		var t float64
		if json.Unmarshal(v, &t) != nil {
			return nil, shlyuz.ErrInvalidValue("temperature", "The temperature must be a number.")
		}
		if t < 0 || t > 1 {
			return nil, shlyuz.ErrInvalidValue("temperature",
				"The model %q takes a temperature from 0 to 1; %v is out of range.", req.Model, t)
		}
		w.CompletionOptions.Temperature = &t
	}
	if mt := maxTokens(req); mt > 0 {
		w.CompletionOptions.MaxTokens = strconv.FormatInt(mt, 10)
	}
	if v := f["reasoning_effort"]; present(v) {
		var effort string
		if json.Unmarshal(v, &effort) != nil {
			return nil, shlyuz.ErrInvalidValue("reasoning_effort", "reasoning_effort must be a string.")
		}
		switch effort {
		case "none", "minimal":
			w.CompletionOptions.ReasoningOptions = &wireReasoningOptions{Mode: "DISABLED"}
		case "low", "medium", "high":
			w.CompletionOptions.ReasoningOptions = &wireReasoningOptions{Mode: "ENABLED_HIDDEN"}
		}
	}

	toolsOff := false
	if v := f["tool_choice"]; present(v) {
		tc, off, err := toolChoice(v)
		if err != nil {
			return nil, err
		}
		w.ToolChoice, toolsOff = tc, off
	}
	if v := f["tools"]; present(v) && !toolsOff {
		tools, err := convertTools(v)
		if err != nil {
			return nil, err
		}
		w.Tools = tools
	}
	if len(w.Tools) == 0 {
		w.ToolChoice = nil
	} else if v := f["parallel_tool_calls"]; present(v) {
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return nil, shlyuz.ErrInvalidValue("parallel_tool_calls", "parallel_tool_calls must be true or false.")
		}
		w.ParallelToolCalls = &b
	}

	if v := f["response_format"]; present(v) {
		if err := responseFormat(&w, v); err != nil {
			return nil, err
		}
	}

	msgs, err := convertMessages(req.Model, f["messages"])
	if err != nil {
		return nil, err
	}
	w.Messages = msgs

	b, merr := plainjson.Marshal(&w)
	if merr != nil {
		// Only a raw value that is not valid JSON can fail here; the client's
		// body was parsed already, so this is ours.
		return nil, shlyuz.ErrInternal(merr)
	}
	return b, nil
}

// present reports whether a field was sent with a value other than null.
func present(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }

// maxTokens is the gateway's ceiling, or else the client's own.
func maxTokens(req *shlyuz.UpstreamRequest) int64 {
	if req.MaxTokens > 0 {
		return req.MaxTokens
	}
	for _, k := range []string{"max_completion_tokens", "max_tokens"} {
		var n int64
		if v := req.Fields[k]; present(v) && json.Unmarshal(v, &n) == nil && n > 0 {
			return n
		}
	}
	return 0
}

func checkN(v json.RawMessage) error {
	if !present(v) {
		return nil
	}
	var n int64
	if json.Unmarshal(v, &n) != nil || n != 1 {
		return shlyuz.ErrInvalidValue("n", "This model returns one choice: n must be 1.")
	}
	return nil
}

// toolChoice maps OpenAI's tool_choice. "none" turns the tools off (no tools
// are sent), "auto" is the native default; off reports the former.
func toolChoice(v json.RawMessage) (tc *wireToolChoice, off bool, err error) {
	var mode string
	if json.Unmarshal(v, &mode) == nil {
		switch mode {
		case "none":
			return nil, true, nil
		case "auto":
			return nil, false, nil
		case "required":
			return &wireToolChoice{Mode: "REQUIRED"}, false, nil
		}
		return nil, false, shlyuz.ErrInvalidValue("tool_choice", "tool_choice must be \"none\", \"auto\", \"required\" or a function.")
	}
	var obj struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(v, &obj) != nil || obj.Type != "function" || obj.Function.Name == "" {
		return nil, false, shlyuz.ErrInvalidValue("tool_choice", "tool_choice must be \"none\", \"auto\", \"required\" or {\"type\":\"function\",\"function\":{\"name\":…}}.")
	}
	return &wireToolChoice{FunctionName: obj.Function.Name}, false, nil
}

func convertTools(v json.RawMessage) ([]wireTool, error) {
	var tools []oaiTool
	if err := json.Unmarshal(v, &tools); err != nil {
		return nil, shlyuz.ErrInvalidValue("tools", "tools must be an array of function tools.")
	}
	out := make([]wireTool, 0, len(tools))
	for i, t := range tools {
		if t.Type != "function" || t.Function == nil || t.Function.Name == "" {
			return nil, shlyuz.ErrInvalidValue("tools", "tools[%d]: only function tools with a name are supported by this model.", i)
		}
		params := t.Function.Parameters
		if !present(params) {
			params = emptyParameters
		}
		out = append(out, wireTool{Function: wireFunctionTool{
			Name:        t.Function.Name,
			Description: t.Function.Description,
			Parameters:  params,
			Strict:      t.Function.Strict,
		}})
	}
	return out, nil
}

func responseFormat(w *wireRequest, v json.RawMessage) error {
	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if json.Unmarshal(v, &rf) != nil {
		return shlyuz.ErrInvalidValue("response_format", "response_format must be an object with a type.")
	}
	switch rf.Type {
	case "", "text":
	case "json_object":
		w.JSONObject = true
	case "json_schema":
		if rf.JSONSchema == nil || !present(rf.JSONSchema.Schema) {
			return shlyuz.ErrInvalidValue("response_format", "response_format json_schema needs a schema.")
		}
		w.JSONSchema = &wireJSONSchema{Schema: rf.JSONSchema.Schema}
	default:
		return shlyuz.ErrInvalidValue("response_format", "response_format type %q is not supported by this model.", rf.Type)
	}
	return nil
}

// convertMessages maps OpenAI messages to native ones: text in "text",
// developer as system, assistant tool calls as a toolCallList (arguments as
// an object), and each run of tool messages as one user toolResultList whose
// results are named after the calls they answer (the native API has no call ids).
func convertMessages(model string, v json.RawMessage) ([]wireMessage, error) {
	if !present(v) {
		return nil, shlyuz.ErrMissingField("messages")
	}
	var msgs []oaiMessage
	if err := json.Unmarshal(v, &msgs); err != nil {
		return nil, shlyuz.ErrInvalidValue("messages", "messages must be an array of message objects.")
	}
	out := make([]wireMessage, 0, len(msgs))
	callNames := map[string]string{} // tool_call_id → function name
	for i, m := range msgs {
		switch m.Role {
		case "system", "developer", "user", "assistant":
			text, err := contentText(model, i, m.Content)
			if err != nil {
				return nil, err
			}
			role := m.Role
			if role == "developer" {
				role = "system"
			}
			if text != "" {
				out = append(out, wireMessage{Role: role, Text: &text})
			}
			if len(m.ToolCalls) == 0 {
				continue
			}
			if role != "assistant" {
				return nil, shlyuz.ErrInvalidValue("messages", "messages[%d]: only assistant messages carry tool_calls.", i)
			}
			calls := make([]wireToolCall, 0, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				if c.Function.Name == "" {
					return nil, shlyuz.ErrInvalidValue("messages", "messages[%d].tool_calls[%d] has no function name.", i, j)
				}
				args, err := callArguments(c.Function.Arguments)
				if err != nil {
					return nil, shlyuz.ErrInvalidValue("messages", "messages[%d].tool_calls[%d].function.arguments must be a JSON object.", i, j)
				}
				if c.ID != "" {
					callNames[c.ID] = c.Function.Name
				}
				calls = append(calls, wireToolCall{FunctionCall: &wireFunctionCall{Name: c.Function.Name, Arguments: args}})
			}
			out = append(out, wireMessage{Role: "assistant", ToolCallList: &wireToolCallList{ToolCalls: calls}})
		case "tool", "function":
			name := callNames[m.ToolCallID]
			if name == "" {
				name = m.Name
			}
			if name == "" {
				return nil, shlyuz.ErrInvalidValue("messages", "messages[%d]: the tool result answers no earlier tool call (unknown tool_call_id %q).", i, m.ToolCallID)
			}
			text, err := contentText(model, i, m.Content)
			if err != nil {
				return nil, err
			}
			res := wireToolResult{FunctionResult: wireFunctionResult{Name: name, Content: text}}
			if n := len(out); n > 0 && out[n-1].ToolResultList != nil {
				out[n-1].ToolResultList.ToolResults = append(out[n-1].ToolResultList.ToolResults, res)
				continue
			}
			out = append(out, wireMessage{Role: "user", ToolResultList: &wireToolResultList{ToolResults: []wireToolResult{res}}})
		default:
			return nil, shlyuz.ErrInvalidValue("messages", "messages[%d]: role %q is not supported.", i, m.Role)
		}
	}
	if len(out) == 0 {
		return nil, shlyuz.ErrInvalidValue("messages", "The messages carry no text.")
	}
	return out, nil
}

// contentText is a message's content as one text: a string, or the text
// parts joined by newlines. The native API takes text only.
func contentText(model string, i int, c json.RawMessage) (string, error) {
	if !present(c) {
		return "", nil
	}
	switch c[0] {
	case '"':
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return "", shlyuz.ErrInvalidValue("messages", "messages[%d].content is not a valid string.", i)
		}
		return s, nil
	case '[':
		var parts []oaiPart
		if err := json.Unmarshal(c, &parts); err != nil {
			return "", shlyuz.ErrInvalidValue("messages", "messages[%d].content must be a string or an array of parts.", i)
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			switch p.Type {
			case "text":
				texts = append(texts, p.Text)
			case "image_url":
				return "", shlyuz.ErrInvalidValue("messages",
					"The model %q does not accept images: messages[%d] has an image_url part. Send text only, or pick a model with vision.", model, i)
			default:
				return "", shlyuz.ErrInvalidValue("messages",
					"The model %q accepts text only: messages[%d] has a %q part.", model, i, p.Type)
			}
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", shlyuz.ErrInvalidValue("messages", "messages[%d].content must be a string or an array of parts.", i)
}

// callArguments turns OpenAI's arguments (a JSON string holding an object, or
// an object) into the native object.
func callArguments(v json.RawMessage) (json.RawMessage, error) {
	if !present(v) {
		return json.RawMessage(`{}`), nil
	}
	raw := []byte(v)
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return json.RawMessage(`{}`), nil
		}
		raw = []byte(s)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("arguments are not a JSON object")
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
