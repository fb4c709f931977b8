package anthropic

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz/http/internal/api"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/tokens"
)

// The Anthropic Messages request as the gateway reads it. The body itself
// goes unchanged to an Anthropic upstream (shlyuz.NativeRequest); for every
// other upstream it is put in OpenAI's chat shape (chatFields).
type anthropicRequest struct {
	Model         string             `json:"model"`
	MaxTokens     *int64             `json:"max_tokens"`
	System        json.RawMessage    `json:"system"`
	Messages      []anthropicTurn    `json:"messages"`
	Stream        bool               `json:"stream"`
	Temperature   *float64           `json:"temperature"`
	TopP          *float64           `json:"top_p"`
	TopK          *int64             `json:"top_k"`
	StopSequences []string           `json:"stop_sequences"`
	Tools         []anthropicTool    `json:"tools"`
	ToolChoice    *anthropicChoice   `json:"tool_choice"`
	Thinking      *anthropicThinking `json:"thinking"`
	Metadata      *struct {
		UserID string `json:"user_id"`
	} `json:"metadata"`
	// Structured output: output_config.format, or the beta's output_format,
	// {"type":"json_schema","schema":{…}}.
	OutputConfig *struct {
		Format *outputFormat `json:"format"`
	} `json:"output_config"`
	OutputFormat *outputFormat `json:"output_format"`

	// room lends the buffer fastMessages wrote the messages into (shlyuz.BodyRoom).
	room *shlyuz.BodyRoom
	// chatTools are the tools in chat's form when fastMessages wrote them
	// (then Tools is empty).
	chatTools json.RawMessage
}

type outputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

type anthropicTurn struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthropicBlock is any content block of a request.
type anthropicBlock struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Source *struct {
		Type      string `json:"type"` // base64, url, text
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	IsError      bool            `json:"is_error"`
	CacheControl json.RawMessage `json:"cache_control"`
}

type anthropicTool struct {
	Type         string          `json:"type"` // absent or "custom": a function; anything else a server tool
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl json.RawMessage `json:"cache_control"`
}

type anthropicChoice struct {
	Type                   string `json:"type"` // auto, any, tool, none
	Name                   string `json:"name"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use"`
}

type anthropicThinking struct {
	Type         string `json:"type"` // enabled, disabled
	BudgetTokens int64  `json:"budget_tokens"`
}

// anthropicHeaders are the client's headers an Anthropic upstream gets too.
var anthropicHeaders = []string{"Anthropic-Beta"}

// ParseMessages reads an Anthropic Messages request into a chat call: the
// body kept for an Anthropic upstream, its chat form for the others.
// A count only (count_tokens) needs no max_tokens.
func ParseMessages(body []byte, header func(string, ...string) string, countOnly bool) (*actors.ChatCall, *shlyuz.Error) {
	top, serr := api.SplitObject(body) // spans of body, kept for an Anthropic upstream
	if serr != nil {
		return nil, shlyuz.ErrInvalidJSON(serr.Error())
	}
	if top == nil {
		return nil, shlyuz.ErrInvalidJSON("the body must be a JSON object")
	}
	var r anthropicRequest
	msgs, fastEst, fast := fastMessages(top, &r) // anthropic_fast.go
	if !fast {
		r, msgs = anthropicRequest{}, nil
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, shlyuz.ErrInvalidValue("", "The request does not have Anthropic's Messages shape: %s", err.Error())
		}
	}
	if countOnly && r.MaxTokens == nil {
		one := int64(1)
		r.MaxTokens = &one
	}
	switch {
	case r.Model == "":
		return nil, shlyuz.ErrMissingField("model")
	case r.MaxTokens == nil:
		return nil, shlyuz.ErrMissingField("max_tokens")
	case *r.MaxTokens < 1:
		return nil, shlyuz.ErrInvalidValue("max_tokens", "max_tokens must be at least 1.")
	case msgs == nil && len(r.Messages) == 0: // fastMessages gives msgs only for turns
		return nil, shlyuz.ErrMissingField("messages")
	}
	native := &shlyuz.NativeRequest{Protocol: shlyuz.ProtocolAnthropic, Body: top}
	for _, h := range anthropicHeaders {
		if v := header(h); v != "" {
			if native.Headers == nil {
				native.Headers = map[string]string{}
			}
			native.Headers[h] = v
		}
	}
	fields, unfit, err := chatFields(&r, msgs)
	if err != nil {
		return nil, err
	}
	native.Unfit = unfit
	est := fastEst // counted as fastMessages wrote them: the messages are not walked again
	if !fast {
		var eerr error
		if est, eerr = tokens.EstimatePrompt(fields["messages"]); eerr != nil {
			return nil, shlyuz.ErrInvalidValue("messages", "The messages are not valid: %s", eerr.Error())
		}
	}
	if err := api.WithMedia(&est, fields["messages"], "messages"); err != nil {
		return nil, err
	}
	// Tool definitions are prompt too: as the client wrote them (an Anthropic upstream gets them so) or
	// as chat carries them to the others, whichever is larger.
	est = api.WithDefinitions(est, tokens.EstimateDefinitions(top["tools"]), tokens.EstimateDefinitions(fields["tools"], fields["response_format"]))
	call := &actors.ChatCall{
		Fields: fields, Native: native, Models: []string{r.Model}, Stream: r.Stream,
		MaxTokens: *r.MaxTokens, Prompt: est, AllowFallbacks: true, Started: time.Now(), Room: r.room,
	}
	if err := api.ReadRouting(top, call); err != nil {
		return nil, err
	}
	if err := api.RefuseChatOnly(top); err != nil {
		return nil, err
	}
	if call.WebSearches, err = api.ServerToolFees(top["tools"]); err != nil {
		return nil, err
	}
	api.WithoutRouting(top) // Anthropic answers 400 "Extra inputs are not permitted" to them
	return call, nil
}

// chatFields is the request in OpenAI's chat shape, with msgs as its
// messages and r.chatTools as its tools when fastMessages wrote them (else
// they are made of r's). unfit
// is set when the request holds what chat cannot carry (server tools): only
// an Anthropic upstream may then serve it.
func chatFields(r *anthropicRequest, msgs json.RawMessage) (fields map[string]json.RawMessage, unfit, err *shlyuz.Error) {
	f := map[string]any{"model": r.Model, "max_tokens": *r.MaxTokens}
	if msgs == nil {
		var turns []map[string]any
		if sys, err := systemText(r.System); err != nil {
			unfit = err
			turns = append(turns, map[string]any{"role": "system", "content": string(r.System)})
		} else if sys != nil {
			turns = append(turns, map[string]any{"role": "system", "content": sys})
		}
		for i, t := range r.Messages {
			out, err := chatMessages(t, i)
			if err != nil {
				// What chat cannot carry still goes as it came to an Anthropic upstream; the
				// turn's JSON as text keeps the estimate above what it holds.
				unfit = cmp.Or(unfit, err)
				out = []map[string]any{{"role": "user", "content": t.Role + string(t.Content)}}
			}
			turns = append(turns, out...)
		}
		f["messages"] = turns
	}
	if r.Stream {
		f["stream"] = true
	}
	api.Sampling{Temperature: r.Temperature, TopP: r.TopP, TopK: r.TopK, Stop: r.StopSequences}.Put(f)
	if r.Metadata != nil && r.Metadata.UserID != "" {
		f["user"] = r.Metadata.UserID
	}
	format := r.OutputFormat
	if r.OutputConfig != nil && r.OutputConfig.Format != nil {
		format = r.OutputConfig.Format
	}
	if format != nil && format.Type == "json_schema" && len(format.Schema) > 0 && !api.IsNull(format.Schema) {
		f["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "output", "schema": format.Schema}}
	}
	if th := r.Thinking; th != nil && th.Type == "enabled" {
		reasoning := map[string]any{"enabled": true}
		if th.BudgetTokens > 0 {
			reasoning["max_tokens"] = th.BudgetTokens
		}
		f["reasoning"] = reasoning
	}
	var tools []any
	for i, t := range r.Tools {
		if t.Type != "" && t.Type != "custom" {
			unfit = cmp.Or(unfit, shlyuz.ErrInvalidValue("tools", "tools[%d]: the server tool %q is served by Anthropic's own models only.", i, t.Type))
			continue
		}
		if t.Name == "" {
			unfit = cmp.Or(unfit, shlyuz.ErrInvalidValue("tools", "tools[%d]: a tool needs a name.", i))
			continue
		}
		fn := map[string]any{"name": t.Name}
		if t.Description != "" {
			fn["description"] = t.Description
		}
		if len(t.InputSchema) > 0 {
			fn["parameters"] = t.InputSchema
		}
		tool := map[string]any{"type": "function", "function": fn}
		if len(t.CacheControl) > 0 {
			tool["cache_control"] = t.CacheControl
		}
		tools = append(tools, tool)
	}
	if len(tools) > 0 || r.chatTools != nil {
		if r.chatTools == nil {
			f["tools"] = tools
		}
		if c := r.ToolChoice; c != nil {
			switch c.Type {
			case "auto":
				f["tool_choice"] = "auto"
			case "any":
				f["tool_choice"] = "required"
			case "none":
				f["tool_choice"] = "none"
			case "tool":
				f["tool_choice"] = map[string]any{"type": "function", "function": map[string]string{"name": c.Name}}
			default:
				unfit = cmp.Or(unfit, shlyuz.ErrInvalidValue("tool_choice", "tool_choice.type is auto, any, tool or none, not %q.", c.Type))
			}
			if c.DisableParallelToolUse {
				f["parallel_tool_calls"] = false
			}
		}
	}
	if fields, err = api.EncodeFields(f, msgs, r.chatTools); err != nil {
		return nil, nil, err
	}
	return fields, unfit, nil
}

// systemText is the system prompt as chat content: a string, or text parts
// keeping their cache_control (OpenRouter's convention).
func systemText(raw json.RawMessage) (any, *shlyuz.Error) {
	if len(raw) == 0 || api.IsNull(raw) {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		if s == "" {
			return nil, nil
		}
		return s, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, shlyuz.ErrInvalidValue("system", "system is a string or a list of text blocks.")
	}
	parts := make([]map[string]any, 0, len(blocks))
	for _, b := range blocks {
		if b.Type != "text" {
			return nil, shlyuz.ErrInvalidValue("system", "system holds text blocks only, not %q.", b.Type)
		}
		parts = append(parts, textPart(b.Text, b.CacheControl))
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return parts, nil
}

func textPart(text string, cache json.RawMessage) map[string]any {
	p := map[string]any{"type": "text", "text": text}
	if len(cache) > 0 && !api.IsNull(cache) {
		p["cache_control"] = cache
	}
	return p
}

// turnBlocks reads a turn's content: a string or a list of blocks.
func turnBlocks(c json.RawMessage, at string) ([]anthropicBlock, *shlyuz.Error) {
	if len(c) == 0 || api.IsNull(c) {
		return nil, shlyuz.ErrInvalidValue("messages", "%s.content is required.", at)
	}
	if c[0] == '"' {
		var s string
		_ = json.Unmarshal(c, &s)
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(c, &blocks); err != nil {
		return nil, shlyuz.ErrInvalidValue("messages", "%s.content is a string or a list of content blocks: %s", at, err.Error())
	}
	return blocks, nil
}

// chatMessages is one Anthropic turn as chat messages: a user turn's
// tool results become tool messages ahead of what else it says; an
// assistant turn's tool_use blocks become its tool_calls.
func chatMessages(t anthropicTurn, i int) ([]map[string]any, *shlyuz.Error) {
	at := "messages[" + strconv.Itoa(i) + "]"
	blocks, err := turnBlocks(t.Content, at)
	if err != nil {
		return nil, err
	}
	switch t.Role {
	case "user":
		return userMessages(blocks, at)
	case "assistant":
		return assistantMessage(blocks, at)
	case "system": // mid-conversation (Claude Code's beta): chat carries a system message where it stands
		sys, err := systemText(t.Content)
		if err != nil || sys == nil {
			return nil, err
		}
		return []map[string]any{{"role": "system", "content": sys}}, nil
	}
	return nil, shlyuz.ErrInvalidValue("messages", "%s.role is user or assistant, not %q.", at, t.Role)
}

func userMessages(blocks []anthropicBlock, at string) ([]map[string]any, *shlyuz.Error) {
	var out []map[string]any
	parts := make([]map[string]any, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == "tool_result" {
			content, err := toolResultContent(b, at)
			if err != nil {
				return nil, err
			}
			out = append(out, map[string]any{"role": "tool", "tool_call_id": b.ToolUseID, "content": content})
			continue
		}
		p, err := contentPart(b, at)
		if err != nil {
			return nil, err
		}
		if p != nil {
			parts = append(parts, p)
		}
	}
	if len(parts) > 0 {
		out = append(out, map[string]any{"role": "user", "content": parts})
	}
	return out, nil
}

// contentPart is a user block as a chat content part (nil: nothing to carry).
func contentPart(b anthropicBlock, at string) (map[string]any, *shlyuz.Error) {
	switch b.Type {
	case "text":
		if b.Text == "" {
			return nil, nil
		}
		return textPart(b.Text, b.CacheControl), nil
	case "image", "document":
		src := b.Source
		if src == nil {
			return nil, shlyuz.ErrInvalidValue("messages", "%s: an %s block needs its source.", at, b.Type)
		}
		var p map[string]any
		switch {
		case src.Type == "text" && b.Type == "document":
			p = map[string]any{"type": "text", "text": src.Data}
		case src.Type == "url" && b.Type == "image":
			p = map[string]any{"type": "image_url", "image_url": map[string]string{"url": src.URL}}
		case src.Type == "base64" && b.Type == "image":
			p = map[string]any{"type": "image_url", "image_url": map[string]string{"url": "data:" + src.MediaType + ";base64," + src.Data}}
		case src.Type == "base64":
			p = map[string]any{"type": "file", "file": map[string]string{"filename": "document.pdf", "file_data": "data:" + src.MediaType + ";base64," + src.Data}}
		case src.Type == "url":
			p = map[string]any{"type": "file", "file": map[string]string{"file_data": src.URL}}
		default:
			return nil, shlyuz.ErrInvalidValue("messages", "%s: an %s source of type %q cannot be carried.", at, b.Type, src.Type)
		}
		if len(b.CacheControl) > 0 && !api.IsNull(b.CacheControl) {
			p["cache_control"] = b.CacheControl
		}
		return p, nil
	case "thinking", "redacted_thinking":
		return nil, nil
	}
	return nil, shlyuz.ErrInvalidValue("messages", "%s: content blocks of type %q are not supported here.", at, b.Type)
}

// toolResultContent is a tool_result's content as a tool message's: a
// string, or parts; an error result says so first.
func toolResultContent(b anthropicBlock, at string) (any, *shlyuz.Error) {
	prefix := ""
	if b.IsError {
		prefix = "Error: "
	}
	if len(b.Content) == 0 || api.IsNull(b.Content) {
		return prefix, nil
	}
	inner, err := turnBlocks(b.Content, at)
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	text.WriteString(prefix)
	parts := make([]map[string]any, 0, len(inner))
	onlyText := true
	for _, ib := range inner {
		p, err := contentPart(ib, at)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		if p["type"] != "text" {
			onlyText = false
		} else {
			text.WriteString(ib.Text)
		}
		parts = append(parts, p)
	}
	if onlyText {
		return text.String(), nil
	}
	if prefix != "" {
		parts = append([]map[string]any{{"type": "text", "text": prefix}}, parts...)
	}
	return parts, nil
}

func assistantMessage(blocks []anthropicBlock, at string) ([]map[string]any, *shlyuz.Error) {
	var text strings.Builder
	var calls []map[string]any
	for _, b := range blocks {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			input := b.Input
			if len(input) == 0 || api.IsNull(input) {
				input = json.RawMessage("{}")
			}
			calls = append(calls, map[string]any{"id": b.ID, "type": "function",
				"function": map[string]any{"name": b.Name, "arguments": string(input)}})
		case "thinking", "redacted_thinking":
			// another upstream cannot read Anthropic's signed thinking
		default:
			return nil, shlyuz.ErrInvalidValue("messages", "%s: an assistant turn cannot carry a %q block here.", at, b.Type)
		}
	}
	m := map[string]any{"role": "assistant"}
	if text.Len() > 0 {
		m["content"] = text.String()
	} else {
		m["content"] = nil
	}
	if len(calls) > 0 {
		m["tool_calls"] = calls
	} else if text.Len() == 0 {
		return nil, nil
	}
	return []map[string]any{m}, nil
}
