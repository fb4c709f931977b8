package responses

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz/http/internal/api"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/tokens"
)

// responsesRequest is OpenAI's Responses request as the gateway reads it:
// stateless, put in chat's shape for every upstream.
type responsesRequest struct {
	// raw is the body's top-level members (spans of it), nil when it is no object.
	raw                map[string]json.RawMessage
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	Instructions       string          `json:"instructions"`
	Tools              []responsesTool `json:"tools"`
	ToolChoice         json.RawMessage `json:"tool_choice"`
	ParallelToolCalls  *bool           `json:"parallel_tool_calls"`
	MaxOutputTokens    *int64          `json:"max_output_tokens"`
	Temperature        *float64        `json:"temperature"`
	TopP               *float64        `json:"top_p"`
	Stream             bool            `json:"stream"`
	User               string          `json:"user"`
	PreviousResponseID *string         `json:"previous_response_id"`
	Conversation       json.RawMessage `json:"conversation"`
	Background         bool            `json:"background"`
	Reasoning          *struct {
		Effort  string `json:"effort"`
		Summary string `json:"summary"`
	} `json:"reasoning"`
	Text *struct {
		Format *struct {
			Type        string          `json:"type"` // text, json_schema, json_object
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Strict      *bool           `json:"strict"`
		} `json:"format"`
	} `json:"text"`

	// room lends the buffer fastResponses wrote the messages into (shlyuz.BodyRoom).
	room *shlyuz.BodyRoom
	// chatTools are the tools in chat's form when fastResponses wrote them
	// (then Tools is empty).
	chatTools json.RawMessage
	// instructions is the instructions' literal (a span of the body) when
	// fastResponses took it as it stands (then Instructions is empty).
	instructions json.RawMessage
	// namespaced names a namespace's function by the flat name chat calls
	// it (responsesTools), for its calls to go back as the client named them.
	namespaced map[string]namespacedName
	// leftOut are the hosted tools (web_search, …) no chat upstream
	// carries, as "tools.<type>": left out, and said so.
	leftOut []string
}

// namespacedName is a function of a namespace, as the client named it.
type namespacedName struct{ namespace, name string }

// namespaceSep joins a namespace's name and its function's in the flat
// name chat gets ("multi_agent_v1__spawn_agent"): a character every
// upstream allows in a function name.
const namespaceSep = "__"

type responsesTool struct {
	Type        string          `json:"type"`
	Tools       []responsesTool `json:"tools"` // a namespace's functions
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

// responsesItem is one input item: a message (typed or as {role, content}),
// a function call or a function call's output.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"` // a namespace's function (responsesTools)
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// responsesPart is a part of an input message's content.
type responsesPart struct {
	Type     string `json:"type"` // input_text, output_text, input_image, input_file, refusal
	Text     string `json:"text"`
	Refusal  string `json:"refusal"`
	ImageURL string `json:"image_url"`
	FileID   string `json:"file_id"`
	Detail   string `json:"detail"`
	FileData string `json:"file_data"`
	Filename string `json:"filename"`
}

// ParseResponses reads a Responses request into a chat call. Stateful
// features (previous_response_id, conversation, background) and tools other
// than functions are refused: nothing is stored between requests.
func ParseResponses(body []byte) (*actors.ChatCall, *responsesRequest, *shlyuz.Error) {
	var r responsesRequest
	var msgs json.RawMessage
	var fastEst tokens.PromptEstimate // the messages' estimate, when fastResponses wrote them
	top, serr := api.SplitObject(body)
	if serr == nil && top != nil {
		r.raw = top
		var fast bool
		if msgs, fastEst, fast = fastResponses(top, &r); !fast { // responses_fast.go
			r, msgs = responsesRequest{raw: top}, nil
		}
	}
	if msgs == nil {
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, nil, shlyuz.ErrInvalidJSON(err.Error())
		}
	}
	switch {
	case r.Model == "":
		return nil, nil, shlyuz.ErrMissingField("model")
	case r.PreviousResponseID != nil && *r.PreviousResponseID != "":
		return nil, nil, stateless("previous_response_id", "previous_response_id")
	case len(r.Conversation) > 0 && !api.IsNull(r.Conversation):
		return nil, nil, stateless("conversation", "a conversation")
	case r.Background:
		return nil, nil, stateless("background", "background responses")
	case r.MaxOutputTokens != nil && *r.MaxOutputTokens < 1:
		return nil, nil, shlyuz.ErrInvalidValue("max_output_tokens", "max_output_tokens must be at least 1.")
	}
	f := map[string]any{"model": r.Model}
	if msgs == nil {
		turns, err := responsesMessages(&r)
		if err != nil {
			return nil, nil, err
		}
		f["messages"] = turns
	}
	if r.Stream {
		f["stream"] = true
	}
	if r.MaxOutputTokens != nil {
		f["max_tokens"] = *r.MaxOutputTokens
	}
	api.Sampling{Temperature: r.Temperature, TopP: r.TopP}.Put(f)
	if r.User != "" {
		f["user"] = r.User
	}
	if r.ParallelToolCalls != nil {
		f["parallel_tool_calls"] = *r.ParallelToolCalls
	}
	if rs := r.Reasoning; rs != nil && rs.Effort != "" {
		f["reasoning"] = map[string]any{"effort": rs.Effort}
	}
	if t := r.Text; t != nil && t.Format != nil {
		switch t.Format.Type {
		case "", "text":
		case "json_object":
			f["response_format"] = map[string]any{"type": "json_object"}
		case "json_schema":
			js := map[string]any{"name": t.Format.Name, "schema": t.Format.Schema}
			if t.Format.Description != "" {
				js["description"] = t.Format.Description
			}
			if t.Format.Strict != nil {
				js["strict"] = *t.Format.Strict
			}
			f["response_format"] = map[string]any{"type": "json_schema", "json_schema": js}
		default:
			return nil, nil, shlyuz.ErrInvalidValue("text", "text.format.type is text, json_schema or json_object, not %q.", t.Format.Type)
		}
	}
	if err := responsesTools(&r, f); err != nil {
		return nil, nil, err
	}
	fields, err := api.EncodeFields(f, msgs, r.chatTools)
	if err != nil {
		return nil, nil, err
	}
	est := fastEst // counted as fastResponses wrote them: the messages are not walked again
	if msgs == nil {
		var eerr error
		if est, eerr = tokens.EstimatePrompt(fields["messages"]); eerr != nil {
			return nil, nil, shlyuz.ErrInvalidValue("input", "The input is not valid: %s", eerr.Error())
		}
	}
	if err := api.WithMedia(&est, fields["messages"], "input"); err != nil {
		return nil, nil, err
	}
	est = api.WithDefinitions(est, tokens.EstimateDefinitions(fields["tools"], fields["functions"], fields["response_format"]))
	call := &actors.ChatCall{Fields: fields, Models: []string{r.Model}, Stream: r.Stream, Prompt: est,
		AllowFallbacks: true, Started: time.Now(), Room: r.room}
	if r.MaxOutputTokens != nil {
		call.MaxTokens = *r.MaxOutputTokens
	}
	if r.raw != nil {
		if err := api.ReadRouting(r.raw, call); err != nil {
			return nil, nil, err
		}
		if err := api.RefuseChatOnly(r.raw); err != nil {
			return nil, nil, err
		}
	}
	return call, &r, nil
}

func stateless(field, what string) *shlyuz.Error {
	return shlyuz.ErrInvalidValue(field, "Shlyuz's Responses API is stateless and does not keep %s: send the whole conversation as input items.", what)
}

// responsesTools maps function tools (unless fastResponses wrote them as
// r.chatTools) and tool_choice; other tools are refused.
func responsesTools(r *responsesRequest, f map[string]any) *shlyuz.Error {
	var tools []any
	function := func(t responsesTool, name, at string) *shlyuz.Error {
		if t.Name == "" {
			return shlyuz.ErrInvalidValue("tools", "%s: a function needs a name.", at)
		}
		fn := map[string]any{"name": name}
		if t.Description != "" {
			fn["description"] = t.Description
		}
		if len(t.Parameters) > 0 && !api.IsNull(t.Parameters) {
			fn["parameters"] = t.Parameters
		}
		if t.Strict != nil {
			fn["strict"] = *t.Strict
		}
		tools = append(tools, map[string]any{"type": "function", "function": fn})
		return nil
	}
	for i, t := range r.Tools {
		at := "tools[" + strconv.Itoa(i) + "]"
		switch t.Type {
		case "function":
			if err := function(t, t.Name, at); err != nil {
				return err
			}
		case "namespace": // Codex's sub-agent tools: flat for chat, named back in the reply
			if t.Name == "" {
				return shlyuz.ErrInvalidValue("tools", "%s: a namespace needs a name.", at)
			}
			for j, inner := range t.Tools {
				in := at + ".tools[" + strconv.Itoa(j) + "]"
				if inner.Type != "function" {
					r.leftOut = append(r.leftOut, "tools."+t.Name+"."+inner.Type)
					continue
				}
				flat := t.Name + namespaceSep + inner.Name
				if r.namespaced == nil {
					r.namespaced = map[string]namespacedName{}
				}
				r.namespaced[flat] = namespacedName{t.Name, inner.Name}
				if err := function(inner, flat, in); err != nil {
					return err
				}
			}
		case "":
			return shlyuz.ErrInvalidValue("tools", "%s: a tool needs a type.", at)
		default: // hosted tools (web_search, file_search, …): no chat upstream runs them
			r.leftOut = append(r.leftOut, "tools."+t.Type)
		}
	}
	switch {
	case r.chatTools != nil: // fastResponses wrote them; the fields take them as written
	case len(tools) == 0:
		return nil
	default:
		f["tools"] = tools
	}
	c := r.ToolChoice
	if len(c) == 0 || api.IsNull(c) {
		return nil
	}
	if c[0] == '"' {
		var s string
		_ = json.Unmarshal(c, &s)
		if s != "auto" && s != "none" && s != "required" {
			return shlyuz.ErrInvalidValue("tool_choice", "tool_choice is auto, none, required or a function, not %q.", s)
		}
		f["tool_choice"] = s
		return nil
	}
	var fc struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if json.Unmarshal(c, &fc) != nil || fc.Type != "function" || fc.Name == "" {
		return shlyuz.ErrInvalidValue("tool_choice", `tool_choice is auto, none, required or {"type":"function","name":…}.`)
	}
	f["tool_choice"] = map[string]any{"type": "function", "function": map[string]string{"name": fc.Name}}
	return nil
}

// responsesMessages is the instructions and the input as chat messages:
// function calls join the assistant message before them, their outputs
// become tool messages.
func responsesMessages(r *responsesRequest) ([]map[string]any, *shlyuz.Error) {
	var msgs []map[string]any
	if r.Instructions != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": r.Instructions})
	}
	in := r.Input
	if len(in) == 0 || api.IsNull(in) {
		return nil, shlyuz.ErrMissingField("input")
	}
	if in[0] == '"' {
		var s string
		_ = json.Unmarshal(in, &s)
		return append(msgs, map[string]any{"role": "user", "content": s}), nil
	}
	var items []responsesItem
	if err := json.Unmarshal(in, &items); err != nil {
		return nil, shlyuz.ErrInvalidValue("input", "input is a string or a list of items: %s", err.Error())
	}
	if len(items) == 0 {
		return nil, shlyuz.ErrInvalidValue("input", "input must not be empty.")
	}
	for i, it := range items {
		at := "input[" + itoa(i) + "]"
		switch it.Type {
		case "", "message":
			m, err := responsesMessage(it, at)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		case "function_call":
			name := it.Name
			if it.Namespace != "" {
				name = it.Namespace + namespaceSep + name
			}
			call := map[string]any{"id": it.CallID, "type": "function",
				"function": map[string]any{"name": name, "arguments": it.Arguments}}
			if n := len(msgs); n > 0 && msgs[n-1]["role"] == "assistant" {
				calls, _ := msgs[n-1]["tool_calls"].([]any)
				msgs[n-1]["tool_calls"] = append(calls, call)
			} else {
				msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}})
			}
		case "function_call_output":
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": it.CallID, "content": callOutputText(it.Output)})
		case "reasoning":
			// another request's reasoning: nothing a chat upstream reads
		default:
			return nil, shlyuz.ErrInvalidValue("input", "%s: items of type %q are not served (stateless: messages, function_call and function_call_output).", at, it.Type)
		}
	}
	return msgs, nil
}

// callOutputText is a function call's output as a tool message's content.
func callOutputText(o json.RawMessage) any {
	if len(o) > 0 && o[0] == '"' {
		var s string
		_ = json.Unmarshal(o, &s)
		return s
	}
	var parts []responsesPart
	if json.Unmarshal(o, &parts) != nil {
		return string(o)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func responsesMessage(it responsesItem, at string) (map[string]any, *shlyuz.Error) {
	switch it.Role {
	case "user", "assistant", "system", "developer":
	default:
		return nil, shlyuz.ErrInvalidValue("input", "%s.role is user, assistant, system or developer, not %q.", at, it.Role)
	}
	c := it.Content
	if len(c) == 0 || api.IsNull(c) {
		return nil, shlyuz.ErrInvalidValue("input", "%s.content is required.", at)
	}
	if c[0] == '"' {
		var s string
		_ = json.Unmarshal(c, &s)
		return map[string]any{"role": it.Role, "content": s}, nil
	}
	var parts []responsesPart
	if err := json.Unmarshal(c, &parts); err != nil {
		return nil, shlyuz.ErrInvalidValue("input", "%s.content is a string or a list of parts: %s", at, err.Error())
	}
	if it.Role == "assistant" { // an earlier reply: its text
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text + p.Refusal)
		}
		return map[string]any{"role": "assistant", "content": b.String()}, nil
	}
	out := make([]map[string]any, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			out = append(out, map[string]any{"type": "text", "text": p.Text})
		case "input_image":
			if p.ImageURL == "" {
				return nil, shlyuz.ErrInvalidValue("input", "%s: an input_image needs image_url (file_id needs stored files, which Shlyuz does not keep).", at)
			}
			img := map[string]any{"url": p.ImageURL}
			if p.Detail != "" {
				img["detail"] = p.Detail
			}
			out = append(out, map[string]any{"type": "image_url", "image_url": img})
		case "input_file":
			if p.FileData == "" {
				return nil, shlyuz.ErrInvalidValue("input", "%s: an input_file needs file_data (file_id needs stored files, which Shlyuz does not keep).", at)
			}
			out = append(out, map[string]any{"type": "file", "file": map[string]string{"filename": p.Filename, "file_data": p.FileData}})
		default:
			return nil, shlyuz.ErrInvalidValue("input", "%s: content parts of type %q are not served.", at, p.Type)
		}
	}
	return map[string]any{"role": it.Role, "content": out}, nil
}

func itoa(i int) string { return strconv.Itoa(i) }

// LeftOut are the hosted tools the request named that no chat upstream runs.
func (r *responsesRequest) LeftOut() []string { return r.leftOut }

// Namespaced names each function of a namespace by the flat name chat calls it.
func (r *responsesRequest) Namespaced() map[string]namespacedName { return r.namespaced }
