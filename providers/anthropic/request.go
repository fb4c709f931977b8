package anthropic

import (
	"bytes"
	"encoding/json"
	"github.com/shlyuz/shlyuz/internal/partjson"
	"strings"
	"unicode"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// The Anthropic request, in the order its members are sent. Fields the
// client sent that Anthropic does not know (seed, logprobs, penalties,
// stream_options, OpenAI's metadata, …) are not carried; response_format is a
// forced tool and reasoning a thinking budget (params.go).
type wireRequest struct {
	Model         string          `json:"model"`
	MaxTokens     int64           `json:"max_tokens"`
	System        []block         `json:"system,omitempty"`
	Messages      []turn          `json:"messages"`
	Temperature   *float64        `json:"temperature,omitempty"`
	TopP          *float64        `json:"top_p,omitempty"`
	TopK          *int64          `json:"top_k,omitempty"`
	StopSequences []string        `json:"stop_sequences,omitempty"`
	Tools         []wireTool      `json:"tools,omitempty"`
	ToolChoice    *wireToolChoice `json:"tool_choice,omitempty"`
	Metadata      *wireMetadata   `json:"metadata,omitempty"`
	Thinking      *wireThinking   `json:"thinking,omitempty"`
	Stream        bool            `json:"stream,omitempty"`
}

// turn is one message of the conversation: "user" or "assistant".
type turn struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is a content block: text, image, document, tool_use or tool_result.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Source       *source         `json:"source,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      any             `json:"content,omitempty"` // tool_result: a string or []block
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"` // redacted_thinking
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
}

// source is where an image or document comes from.
type source struct {
	Type      string `json:"type"` // base64 or url
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
}

type wireToolChoice struct {
	Type                   string `json:"type"` // auto, any, tool, none
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

type wireMetadata struct {
	UserID string `json:"user_id"`
}

// The client's OpenAI shapes the adapter reads.
type clientMessage struct {
	Role             string            `json:"role"`
	Content          json.RawMessage   `json:"content"`
	ToolCalls        []clientToolCall  `json:"tool_calls"`
	ToolCallID       string            `json:"tool_call_id"`
	ReasoningDetails []reasoningDetail `json:"reasoning_details"`
}

type clientToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type clientPart struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Refusal      string          `json:"refusal"`
	ImageURL     json.RawMessage `json:"image_url"`
	File         *clientFile     `json:"file"`
	CacheControl json.RawMessage `json:"cache_control"` // OpenRouter's convention for Anthropic prompt caching
}

type clientFile struct {
	FileData string `json:"file_data"`
	FileID   string `json:"file_id"`
}

type clientTool struct {
	Type     string `json:"type"`
	Function *struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
	CacheControl json.RawMessage `json:"cache_control"`
}

// emptySchema is the input schema of a function declared without parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildBody translates the client's OpenAI request into Anthropic's. The
// stream argument, not req.Stream, decides, so that Chat never streams. It
// also reports whether the client asked for usage in the stream (its chunks
// then carry "usage": null, as OpenAI's do). A request that cannot be
// expressed comes back as a 400 *shlyuz.Error, the client's fault.
func buildBody(req *shlyuz.UpstreamRequest, stream bool) (body []byte, o options, err error) {
	f := req.Fields
	w := wireRequest{Model: req.UpstreamModel, Stream: stream}

	if err := translateMessages(f["messages"], &w); err != nil {
		return nil, o, err
	}
	if w.MaxTokens, err = maxTokens(req); err != nil {
		return nil, o, err
	}
	if n, err := number(f, "n"); err != nil {
		return nil, o, err
	} else if n != nil && *n != 1 { // never reserve and bill for choices that do not come
		return nil, o, shlyuz.ErrInvalidValue("n", "Anthropic returns one choice per request: n must be 1.")
	}
	if w.Temperature, err = number(f, "temperature"); err != nil {
		return nil, o, err
	}
	if t := w.Temperature; t != nil {
		// OpenAI's range is 0–2, Anthropic's 0–1.
		v := min(max(*t, 0), 1)
		w.Temperature = &v
	}
	if w.TopP, err = number(f, "top_p"); err != nil {
		return nil, o, err
	}
	if k, err := number(f, "top_k"); err != nil {
		return nil, o, err
	} else if k != nil && *k > 0 {
		n := int64(*k)
		w.TopK = &n
	}
	if w.StopSequences, err = stopSequences(f["stop"]); err != nil {
		return nil, o, err
	}
	if err := translateTools(f, &w); err != nil {
		return nil, o, err
	}
	if o.jsonTool, err = translateResponseFormat(f, &w); err != nil {
		return nil, o, err
	}
	if o.reasoning, err = translateReasoning(f, &w); err != nil {
		return nil, o, err
	}
	if u := f["user"]; len(u) > 0 && u[0] == '"' {
		if id := upstream.JSONText(u); id != "" {
			w.Metadata = &wireMetadata{UserID: id}
		}
	}
	if stream {
		var so struct {
			IncludeUsage bool `json:"include_usage"`
		}
		if v := f["stream_options"]; len(v) > 0 && json.Unmarshal(v, &so) == nil {
			o.clientUsage = so.IncludeUsage
		}
	}
	body, err = plainjson.Marshal(&w)
	if err != nil {
		return nil, o, shlyuz.ErrInternal(err)
	}
	return body, o, nil
}

// maxTokens is the ceiling the gateway decided, or the client's, or the default.
func maxTokens(req *shlyuz.UpstreamRequest) (int64, error) {
	if req.MaxTokens > 0 {
		return req.MaxTokens, nil
	}
	for _, k := range []string{"max_completion_tokens", "max_tokens"} {
		v, err := number(req.Fields, k)
		if err != nil {
			return 0, err
		}
		if v != nil && *v >= 1 {
			return int64(*v), nil
		}
	}
	return DefaultMaxTokens, nil
}

// number reads an optional numeric field; null and absent are nil.
func number(f map[string]json.RawMessage, key string) (*float64, error) {
	v, ok := f[key]
	if !ok || len(v) == 0 || isNull(v) {
		return nil, nil
	}
	var n float64
	if err := json.Unmarshal(v, &n); err != nil {
		return nil, shlyuz.ErrInvalidValue(key, "The field %q must be a number.", key)
	}
	return &n, nil
}

// stopSequences reads OpenAI's stop: a string or an array of strings.
// Anthropic refuses empty or whitespace-only sequences; those are left out.
func stopSequences(v json.RawMessage) ([]string, error) {
	if len(v) == 0 || isNull(v) {
		return nil, nil
	}
	var list []string
	if v[0] == '"' {
		list = []string{upstream.JSONText(v)}
	} else if err := json.Unmarshal(v, &list); err != nil {
		return nil, shlyuz.ErrInvalidValue("stop", "The field \"stop\" must be a string or an array of strings.")
	}
	out := list[:0]
	for _, s := range list {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func badMessages(format string, args ...any) *shlyuz.Error {
	return shlyuz.ErrInvalidValue("messages", format, args...)
}

// translateMessages fills the system prompt and the turns.
func translateMessages(raw json.RawMessage, w *wireRequest) error {
	if len(raw) == 0 || isNull(raw) {
		return shlyuz.ErrMissingField("messages")
	}
	var msgs []clientMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return badMessages("The messages are not valid: %v.", err)
	}
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case "system", "developer":
			parts, err := contentParts(m.Content, i)
			if err != nil {
				return err
			}
			for _, p := range parts {
				if p.Type != "text" {
					return badMessages("messages[%d]: a %s message carries text only.", i, m.Role)
				}
				if p.Text != "" {
					w.System = append(w.System, block{Type: "text", Text: p.Text, CacheControl: p.CacheControl})
				}
			}
		case "user":
			blocks, err := userBlocks(m.Content, i)
			if err != nil {
				return err
			}
			w.Messages = appendTurn(w.Messages, "user", blocks)
		case "assistant":
			blocks, err := assistantBlocks(m, i)
			if err != nil {
				return err
			}
			w.Messages = appendTurn(w.Messages, "assistant", blocks)
		case "tool":
			b, err := toolResult(m, i)
			if err != nil {
				return err
			}
			w.Messages = appendTurn(w.Messages, "user", []block{b})
		default:
			return badMessages("messages[%d]: the role %q is not supported by this upstream.", i, m.Role)
		}
	}
	trimPrefill(w)
	if len(w.Messages) == 0 {
		return badMessages("The request has no user or assistant message with content.")
	}
	for i := range w.Messages {
		if w.Messages[i].Role == "user" {
			toolResultsFirst(w.Messages[i].Content)
		}
	}
	return nil
}

// appendTurn adds blocks as a turn of role, merged into the previous turn
// when it has the same role: Anthropic's turns alternate.
func appendTurn(turns []turn, role string, blocks []block) []turn {
	if len(blocks) == 0 {
		return turns
	}
	if n := len(turns); n > 0 && turns[n-1].Role == role {
		turns[n-1].Content = append(turns[n-1].Content, blocks...)
		return turns
	}
	return append(turns, turn{Role: role, Content: blocks})
}

// toolResultsFirst moves a user turn's tool_result blocks before its other
// blocks, keeping their order: Anthropic wants the results first.
func toolResultsFirst(blocks []block) {
	out := make([]block, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == "tool_result" {
			out = append(out, b)
		}
	}
	if len(out) == 0 || len(out) == len(blocks) {
		return
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			out = append(out, b)
		}
	}
	copy(blocks, out)
}

// trimPrefill trims trailing whitespace off a final assistant turn, which
// Anthropic continues as a prefill and refuses with trailing whitespace.
func trimPrefill(w *wireRequest) {
	n := len(w.Messages)
	if n == 0 || w.Messages[n-1].Role != "assistant" {
		return
	}
	t := &w.Messages[n-1]
	last := &t.Content[len(t.Content)-1]
	if last.Type != "text" {
		return
	}
	last.Text = strings.TrimRightFunc(last.Text, unicode.IsSpace)
	if last.Text == "" {
		t.Content = t.Content[:len(t.Content)-1]
		if len(t.Content) == 0 {
			w.Messages = w.Messages[:n-1]
		}
	}
}

// contentParts reads an OpenAI content: a string, an array of parts, or null.
func contentParts(c json.RawMessage, i int) ([]clientPart, error) {
	if len(c) == 0 || isNull(c) {
		return nil, nil
	}
	switch c[0] {
	case '"':
		return []clientPart{{Type: "text", Text: upstream.JSONText(c)}}, nil
	case '[':
		var parts []clientPart
		if err := json.Unmarshal(c, &parts); err != nil {
			return nil, badMessages("messages[%d]: the content parts are not valid: %v.", i, err)
		}
		return parts, nil
	}
	return nil, badMessages("messages[%d]: the content must be a string or an array of parts.", i)
}

// userBlocks translates a user message's content (text, images, PDF files).
func userBlocks(c json.RawMessage, i int) ([]block, error) {
	parts, err := contentParts(c, i)
	if err != nil {
		return nil, err
	}
	blocks := make([]block, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case "text":
			if p.Text != "" {
				blocks = append(blocks, block{Type: "text", Text: p.Text, CacheControl: p.CacheControl})
			}
		case "image_url":
			b, err := imageBlock(p.ImageURL, i)
			if err != nil {
				return nil, err
			}
			b.CacheControl = p.CacheControl
			blocks = append(blocks, b)
		case "file":
			b, err := documentBlock(p.File, i)
			if err != nil {
				return nil, err
			}
			b.CacheControl = p.CacheControl
			blocks = append(blocks, b)
		default:
			return nil, badMessages("messages[%d]: content parts of type %q are not supported by this upstream.", i, p.Type)
		}
	}
	return blocks, nil
}

// imageBlock translates an image_url part: a base64 data URL or an http(s) URL.
func imageBlock(v json.RawMessage, i int) (block, error) {
	u := partjson.URL(v) // as the request's measure read it
	switch {
	case strings.HasPrefix(u, "data:"):
		mt, data, ok := parseDataURL(u)
		if !ok {
			return block{}, badMessages("messages[%d]: an image data URL must be data:<media type>;base64,<data>.", i)
		}
		return block{Type: "image", Source: &source{Type: "base64", MediaType: mt, Data: data}}, nil
	case strings.HasPrefix(u, "https://"), strings.HasPrefix(u, "http://"):
		return block{Type: "image", Source: &source{Type: "url", URL: u}}, nil
	}
	return block{}, badMessages("messages[%d]: an image must be an http(s) URL or a base64 data URL.", i)
}

// documentBlock translates a file part holding a PDF as a base64 data URL.
func documentBlock(f *clientFile, i int) (block, error) {
	if f != nil && f.FileData != "" {
		if mt, data, ok := parseDataURL(f.FileData); ok && mt == "application/pdf" {
			return block{Type: "document", Source: &source{Type: "base64", MediaType: mt, Data: data}}, nil
		}
	}
	return block{}, badMessages("messages[%d]: only PDF files sent as base64 data URLs (file.file_data) are supported by this upstream.", i)
}

// parseDataURL splits data:<media type>[;params];base64,<data>.
func parseDataURL(u string) (mediaType, data string, ok bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", "", false
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok || data == "" {
		return "", "", false
	}
	params := strings.Split(meta, ";")
	if len(params) < 2 || !strings.EqualFold(strings.TrimSpace(params[len(params)-1]), "base64") {
		return "", "", false
	}
	mediaType = strings.ToLower(strings.TrimSpace(params[0]))
	if mediaType == "image/jpg" {
		mediaType = "image/jpeg"
	}
	if mediaType == "" {
		return "", "", false
	}
	return mediaType, data, true
}

// assistantBlocks translates an assistant message: its text, then its tool calls as tool_use blocks.
func assistantBlocks(m *clientMessage, i int) ([]block, error) {
	parts, err := contentParts(m.Content, i)
	if err != nil {
		return nil, err
	}
	blocks := thinkingBlocks(m.ReasoningDetails)
	for _, p := range parts {
		text := p.Text
		if p.Type == "refusal" {
			text = p.Refusal
		} else if p.Type != "text" {
			continue // an assistant turn carries only text and tool calls
		}
		if text != "" {
			blocks = append(blocks, block{Type: "text", Text: text, CacheControl: p.CacheControl})
		}
	}
	for j, tc := range m.ToolCalls {
		input, err := toolInput(tc.Function.Arguments)
		if err != nil {
			return nil, badMessages("messages[%d].tool_calls[%d]: the arguments are not a JSON object.", i, j)
		}
		if tc.Function.Name == "" {
			return nil, badMessages("messages[%d].tool_calls[%d]: the function has no name.", i, j)
		}
		blocks = append(blocks, block{Type: "tool_use", ID: toolID(tc.ID), Name: tc.Function.Name, Input: input})
	}
	return blocks, nil
}

// toolInput turns OpenAI's arguments (a JSON string holding an object, or
// leniently the object itself) into Anthropic's input object.
func toolInput(args json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 || isNull(args) {
		return json.RawMessage("{}"), nil
	}
	text := []byte(args)
	if args[0] == '"' {
		s := upstream.JSONText(args)
		if strings.TrimSpace(s) == "" {
			return json.RawMessage("{}"), nil
		}
		text = []byte(s)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, text); err != nil {
		return nil, err
	}
	if buf.Len() == 0 || buf.Bytes()[0] != '{' {
		return nil, errNotObject
	}
	return buf.Bytes(), nil
}

// toolResult translates a role "tool" message into a tool_result block.
func toolResult(m *clientMessage, i int) (block, error) {
	if m.ToolCallID == "" {
		return block{}, badMessages("messages[%d]: a tool message needs its tool_call_id.", i)
	}
	b := block{Type: "tool_result", ToolUseID: toolID(m.ToolCallID)}
	c := m.Content
	if len(c) > 0 && c[0] == '"' {
		if s := upstream.JSONText(c); s != "" {
			b.Content = s
		}
		return b, nil
	}
	blocks, err := userBlocks(c, i)
	if err != nil {
		return block{}, err
	}
	if len(blocks) > 0 {
		b.Content = blocks
	}
	return b, nil
}

// toolID makes a tool call id fit Anthropic's pattern ^[a-zA-Z0-9_-]+$ (ids
// made by other upstreams may not), the same way wherever it appears.
func toolID(id string) string {
	ok := true
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			ok = false
			break
		}
	}
	if ok {
		return id
	}
	b := []byte(id)
	for i := range b {
		if !idByte(b[i]) {
			b[i] = '_'
		}
	}
	return string(b)
}

func idByte(c byte) bool {
	return c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// translateTools maps tools, tool_choice and parallel_tool_calls.
func translateTools(f map[string]json.RawMessage, w *wireRequest) error {
	if v := f["tools"]; len(v) > 0 && !isNull(v) {
		var tools []clientTool
		if err := json.Unmarshal(v, &tools); err != nil {
			return shlyuz.ErrInvalidValue("tools", "The tools are not valid: %v.", err)
		}
		for i, t := range tools {
			if (t.Type != "" && t.Type != "function") || t.Function == nil || t.Function.Name == "" {
				return shlyuz.ErrInvalidValue("tools", "tools[%d]: only function tools with a name are supported by this upstream.", i)
			}
			schema := t.Function.Parameters
			if len(schema) == 0 || isNull(schema) {
				schema = emptySchema
			}
			w.Tools = append(w.Tools, wireTool{
				Name: t.Function.Name, Description: t.Function.Description,
				InputSchema: schema, CacheControl: t.CacheControl,
			})
		}
	}
	if len(w.Tools) == 0 {
		return nil // tool_choice without tools means nothing upstream
	}
	if v := f["tool_choice"]; len(v) > 0 && !isNull(v) {
		if v[0] == '"' {
			switch s := upstream.JSONText(v); s {
			case "auto":
				w.ToolChoice = &wireToolChoice{Type: "auto"}
			case "none":
				w.ToolChoice = &wireToolChoice{Type: "none"}
			case "required":
				w.ToolChoice = &wireToolChoice{Type: "any"}
			default:
				return shlyuz.ErrInvalidValue("tool_choice", "The tool_choice %q is not one of auto, none, required.", s)
			}
		} else {
			var c struct {
				Type     string `json:"type"`
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			}
			if err := json.Unmarshal(v, &c); err != nil || c.Type != "function" || c.Function.Name == "" {
				return shlyuz.ErrInvalidValue("tool_choice", "The tool_choice must be auto, none, required or {\"type\":\"function\",\"function\":{\"name\":…}}.")
			}
			w.ToolChoice = &wireToolChoice{Type: "tool", Name: c.Function.Name}
		}
	}
	if v := f["parallel_tool_calls"]; string(bytes.TrimSpace(v)) == "false" {
		if w.ToolChoice == nil {
			w.ToolChoice = &wireToolChoice{Type: "auto"}
		}
		if w.ToolChoice.Type != "none" {
			w.ToolChoice.DisableParallelToolUse = true
		}
	}
	return nil
}

// thinkingBlocks are an assistant message's signed reasoning_details (from
// an Anthropic reply, streamed or not: entries of one index are joined) as
// the thinking blocks Anthropic wants back ahead of the turn's tool calls.
func thinkingBlocks(details []reasoningDetail) []block {
	var out []block
	last := -1
	for _, d := range details {
		if d.Format != reasoningFormat {
			continue
		}
		if d.Type == "reasoning.encrypted" && d.Data != "" {
			out, last = append(out, block{Type: "redacted_thinking", Data: d.Data}), -1
			continue
		}
		if d.Type != "reasoning.text" {
			continue
		}
		if n := len(out); n > 0 && last == d.Index && out[n-1].Type == "thinking" {
			t := *out[n-1].Thinking + d.Text
			out[n-1].Thinking = &t
			if d.Signature != "" {
				out[n-1].Signature = d.Signature
			}
			continue
		}
		t := d.Text
		out, last = append(out, block{Type: "thinking", Thinking: &t, Signature: d.Signature}), d.Index
	}
	// Anthropic takes back only signed thinking.
	signed := out[:0]
	for _, b := range out {
		if b.Type == "redacted_thinking" || b.Signature != "" {
			signed = append(signed, b)
		}
	}
	return signed
}
