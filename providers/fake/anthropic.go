package fake

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// anthropic answers Anthropic's Messages API (POST …/v1/messages) in its
// native shapes: x-api-key and anthropic-version checked, the request
// validated as the real API does (required max_tokens, no unknown top-level
// fields, temperature within 0–1, user/assistant roles, non-empty text
// blocks, tool_use and tool_result paired), replies as a Message, streams as
// named SSE events, errors as {"type":"error","error":{…}}.
func (s *Server) anthropic(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeAnthropicError(w, http.StatusMethodNotAllowed, "invalid_request_error", "Method Not Allowed", "")
		return
	}
	body, ok := s.readBody(r)
	if !ok {
		return // the client went away
	}
	if s.opts.APIKey != "" && r.Header.Get("X-Api-Key") != s.opts.APIKey {
		writeAnthropicError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key", "")
		return
	}
	if r.Header.Get("Anthropic-Version") == "" {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required", "")
		return
	}
	req, ask, msg := parseAnthropic(body, r.Header.Get("Anthropic-Beta"))
	if msg != "" {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", msg, "")
		return
	}

	ask.Usage = usageOf(body)
	ask.Usage.WebSearches = ask.WebSearches
	sc := s.Script(r, ask)
	if !s.Begin(r.Context(), sc.Fault) {
		return
	}
	reqID := "req_fake_" + sc.ID
	if status, quota := StatusOf(sc.Fault); quota {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", anthropicCreditMessage, reqID)
		return
	} else if status != 0 {
		writeAnthropicStatusFault(w, status, req.Model, reqID)
		return
	}
	if req.Stream {
		s.anthropicStream(w, r, req.Model, sc, req.thinks())
	} else {
		anthropicReply(w, req.Model, sc, req.thinks())
	}
}

const anthropicCreditMessage = "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."

// anthropicRequest is what the fake reads from a Messages request.
type anthropicRequest struct {
	Model     string          `json:"model"`
	MaxTokens *int64          `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream bool `json:"stream"`
	Tools  []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
		MaxUses     *int            `json:"max_uses"`
	} `json:"tools"`
	Temperature   *float64 `json:"temperature"`
	TopP          *float64 `json:"top_p"`
	StopSequences []string `json:"stop_sequences"`
	Thinking      *struct {
		Type         string `json:"type"`
		BudgetTokens int64  `json:"budget_tokens"`
	} `json:"thinking"`
	ToolChoice *struct {
		Type string `json:"type"` // auto, any, tool, none
		Name string `json:"name"`
	} `json:"tool_choice"`
	// Structured output: output_config.format (and the beta's output_format),
	// {"type":"json_schema","schema":{…}}.
	OutputConfig *struct {
		Format *anthropicFormat `json:"format"`
	} `json:"output_config"`
	OutputFormat *anthropicFormat `json:"output_format"`
}

// anthropicFormat is a structured output's format.
type anthropicFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

// thinks reports whether the request turned extended thinking on.
func (r *anthropicRequest) thinks() bool { return r.Thinking != nil && r.Thinking.Type == "enabled" }

// The fake's thinking block, when the request turns thinking on.
const (
	AnthropicThinking  = "Let me think this through."
	AnthropicSignature = "fake-signature"
)

// anthropicBlock is any content block.
type anthropicBlock struct {
	Type   string  `json:"type"`
	Text   *string `json:"text"`
	Source *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// anthropicFields are the top-level fields the Messages API knows; others are refused.
var anthropicFields = map[string]bool{
	"model": true, "messages": true, "max_tokens": true, "system": true, "metadata": true,
	"stop_sequences": true, "stream": true, "temperature": true, "top_p": true, "top_k": true,
	"tools": true, "tool_choice": true, "thinking": true, "service_tier": true, "container": true,
	"mcp_servers": true, "context_management": true, "output_config": true, "output_format": true,
	"inference_geo": true,
}

var anthropicImageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// parseAnthropic validates a request the way the real API does and reads it
// into an Ask; msg is the 400 message when the request is refused.
// betas is the anthropic-beta header: with mid-conversation-system, a
// turn may be a system message (text blocks), as Claude Code sends.
func parseAnthropic(body []byte, betas string) (req anthropicRequest, ask Ask, msg string) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return req, ask, "There was an error parsing the body of your request: it is not valid JSON."
	}
	unknown := make([]string, 0)
	for k := range top {
		if !anthropicFields[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return req, ask, unknown[0] + ": Extra inputs are not permitted"
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, ask, "There was an error parsing the body of your request: " + err.Error()
	}
	switch {
	case req.Model == "":
		return req, ask, "model: Field required"
	case req.MaxTokens == nil:
		return req, ask, "max_tokens: Field required"
	case *req.MaxTokens < 1:
		return req, ask, "max_tokens: Input should be greater than or equal to 1"
	case len(req.Messages) == 0:
		return req, ask, "messages: Field required"
	case req.Temperature != nil && (*req.Temperature < 0 || *req.Temperature > 1):
		return req, ask, "temperature: Input should be less than or equal to 1"
	case req.TopP != nil && (*req.TopP < 0 || *req.TopP > 1):
		return req, ask, "top_p: Input should be less than or equal to 1"
	}
	if req.thinks() {
		switch b := req.Thinking.BudgetTokens; {
		case b < 1024:
			return req, ask, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
		case b >= *req.MaxTokens:
			return req, ask, "`max_tokens` must be greater than `thinking.budget_tokens`"
		case req.Temperature != nil && *req.Temperature != 1:
			return req, ask, "`temperature` may only be set to 1 when thinking is enabled"
		}
	}
	for _, s := range req.StopSequences {
		if strings.TrimSpace(s) == "" {
			return req, ask, "stop_sequences: each stop sequence must contain non-whitespace"
		}
	}
	ask.Model = req.Model
	ask.MaxTokens = req.MaxTokens
	for i, t := range req.Tools {
		if strings.HasPrefix(t.Type, "web_search_") { // a server tool: Anthropic runs the search
			if t.MaxUses == nil || *t.MaxUses > 0 {
				ask.WebSearches++
			}
			continue
		}
		if t.Name == "" {
			return req, ask, "tools." + strconv.Itoa(i) + ".name: Field required"
		}
		if len(t.InputSchema) == 0 || t.InputSchema[0] != '{' {
			return req, ask, "tools." + strconv.Itoa(i) + ".input_schema: Field required"
		}
		ask.Tools = append(ask.Tools, t.Name)
	}
	if c := req.ToolChoice; c != nil {
		switch c.Type {
		case "none":
			ask.Tools = nil
		case "tool":
			if !slices.Contains(ask.Tools, c.Name) {
				return req, ask, "tool_choice.name: the tool " + strconv.Quote(c.Name) + " is not among the tools"
			}
			ask.Tools = []string{c.Name}
			fallthrough
		case "any":
			for _, t := range req.Tools {
				if len(ask.Tools) > 0 && t.Name == ask.Tools[0] {
					ask.ToolArguments = forcedArguments(t.InputSchema)
				}
			}
		}
	}
	format := req.OutputFormat
	if req.OutputConfig != nil && req.OutputConfig.Format != nil {
		format = req.OutputConfig.Format
	}
	if format != nil {
		if format.Type != "json_schema" || len(format.Schema) == 0 {
			return req, ask, "output_config.format: the format is {\"type\":\"json_schema\",\"schema\":{…}}"
		}
		ask.JSON = structuredReply(format.Schema)
	}

	// The system prompt: a string or text blocks.
	if len(req.System) > 0 && string(req.System) != "null" {
		blocks, m := anthropicContent(req.System, "system")
		if m != "" {
			return req, ask, m
		}
		for _, b := range blocks {
			if b.Type != "text" {
				return req, ask, "system: Input should be a valid list of text blocks"
			}
			ask.Prompt.Chars += utf8.RuneCountInString(*b.Text)
		}
	}

	var pendingUses []string // tool_use ids of the previous assistant turn, awaiting results
	for i, m := range req.Messages {
		at := "messages." + strconv.Itoa(i)
		if m.Role == "system" && strings.Contains(betas, "mid-conversation-system") {
			blocks, msg := anthropicContent(m.Content, at+".content")
			for j, b := range blocks {
				if b.Type != "text" {
					msg = cmp.Or(msg, at+".content."+strconv.Itoa(j)+": a system message holds text blocks only")
				} else {
					ask.Prompt.Chars += utf8.RuneCountInString(*b.Text)
				}
			}
			if msg != "" {
				return req, ask, msg
			}
			continue
		}
		if m.Role != "user" && m.Role != "assistant" {
			return req, ask, at + ".role: Input should be 'user' or 'assistant'"
		}
		blocks, msg := anthropicContent(m.Content, at+".content")
		if msg != "" {
			return req, ask, msg
		}
		if len(blocks) == 0 && i != len(req.Messages)-1 {
			return req, ask, at + ": all messages must have non-empty content except for the optional final assistant message"
		}
		var uses, results []string
		for j, b := range blocks {
			bat := at + ".content." + strconv.Itoa(j)
			switch b.Type {
			case "text":
				ask.Prompt.Chars += utf8.RuneCountInString(*b.Text)
			case "image":
				ask.Prompt.Images++
			case "document":
				if b.Source != nil && b.Source.Type == "base64" && b.Source.MediaType == "application/pdf" {
					ask.Prompt.Document += pdfBase64Pages(b.Source.Data) * AnthropicPDFPageTokens
				}
			case "tool_use":
				if m.Role != "assistant" {
					return req, ask, bat + ": tool_use blocks are only allowed in assistant messages"
				}
				uses = append(uses, b.ID)
			case "tool_result":
				if m.Role != "user" {
					return req, ask, bat + ": tool_result blocks are only allowed in user messages"
				}
				results = append(results, b.ToolUseID)
				inner, msg := anthropicToolResultContent(b.Content, bat+".content")
				if msg != "" {
					return req, ask, msg
				}
				for _, ib := range inner {
					switch ib.Type {
					case "text":
						ask.Prompt.Chars += utf8.RuneCountInString(*ib.Text)
					case "image":
						ask.Prompt.Images++
					}
				}
			}
		}
		// Every tool_use of an assistant turn is answered at the start of the next user turn, and only those.
		for _, id := range results {
			if !contains(pendingUses, id) {
				return req, ask, at + ": unexpected `tool_use_id` found in `tool_result` blocks: " + id +
					". Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
			}
		}
		for _, id := range pendingUses {
			if !contains(results, id) {
				return req, ask, "messages." + strconv.Itoa(i-1) + ": `tool_use` ids were found without `tool_result` blocks immediately after: " + id +
					". Each `tool_use` block must have a corresponding `tool_result` block in the next message."
			}
		}
		if req.thinks() && m.Role == "assistant" && len(uses) > 0 && i == len(req.Messages)-2 &&
			blocks[0].Type != "thinking" && blocks[0].Type != "redacted_thinking" {
			return req, ask, at + ".content.0.type: Expected `thinking` or `redacted_thinking`, but found `" + blocks[0].Type +
				"`. When `thinking` is enabled, a final `assistant` message must start with a thinking block."
		}
		pendingUses = uses
		if i == len(req.Messages)-1 {
			ask.LastIsToolResult = m.Role == "user" && len(results) > 0
		}
	}
	if len(pendingUses) > 0 {
		return req, ask, "messages." + strconv.Itoa(len(req.Messages)-1) + ": `tool_use` ids were found without `tool_result` blocks immediately after: " +
			pendingUses[0] + ". Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	}
	return req, ask, ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// anthropicContent reads a content value (a string or an array of blocks) and validates its blocks.
func anthropicContent(c json.RawMessage, at string) ([]anthropicBlock, string) {
	if len(c) == 0 {
		return nil, at + ": Field required"
	}
	if c[0] == '"' {
		var s string
		if json.Unmarshal(c, &s) != nil {
			return nil, at + ": Input should be a valid string"
		}
		if s == "" {
			return nil, ""
		}
		return []anthropicBlock{{Type: "text", Text: &s}}, ""
	}
	var blocks []anthropicBlock
	if c[0] != '[' || json.Unmarshal(c, &blocks) != nil {
		return nil, at + ": Input should be a valid list"
	}
	for j, b := range blocks {
		bat := at + "." + strconv.Itoa(j)
		switch b.Type {
		case "text":
			if b.Text == nil {
				return nil, bat + ".text: Field required"
			}
			if *b.Text == "" {
				return nil, "messages: text content blocks must be non-empty"
			}
		case "image", "document":
			src := b.Source
			switch {
			case src == nil:
				return nil, bat + ".source: Field required"
			case src.Type == "base64" && b.Type == "image" && !anthropicImageTypes[src.MediaType]:
				return nil, bat + ".source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
			case src.Type == "base64" && src.Data == "":
				return nil, bat + ".source.base64.data: Field required"
			case src.Type == "url" && !strings.HasPrefix(src.URL, "http"):
				return nil, bat + ".source.url.url: Field required"
			case src.Type != "base64" && src.Type != "url":
				return nil, bat + ".source: Input tag '" + src.Type + "' found using 'type' does not match any of the expected tags: 'base64', 'url'"
			}
		case "tool_use":
			if b.ID == "" || b.Name == "" {
				return nil, bat + ": tool_use blocks need an id and a name"
			}
			if len(b.Input) == 0 || b.Input[0] != '{' {
				return nil, bat + ".input: Input should be a valid dictionary"
			}
		case "tool_result":
			if b.ToolUseID == "" {
				return nil, bat + ".tool_use_id: Field required"
			}
		case "thinking", "redacted_thinking":
		default:
			return nil, bat + ": Input tag '" + b.Type + "' found using 'type' does not match any of the expected tags"
		}
	}
	return blocks, ""
}

// anthropicToolResultContent reads a tool_result's content: absent, a string, or text and image blocks.
func anthropicToolResultContent(c json.RawMessage, at string) ([]anthropicBlock, string) {
	if len(c) == 0 || string(c) == "null" {
		return nil, ""
	}
	blocks, msg := anthropicContent(c, at)
	if msg != "" {
		return nil, msg
	}
	for j, b := range blocks {
		if b.Type != "text" && b.Type != "image" && b.Type != "document" {
			return nil, at + "." + strconv.Itoa(j) + ": a tool_result holds text, image and document blocks only"
		}
	}
	return blocks, ""
}

// anthropicStopReason is Anthropic's name for the script's finish.
func anthropicStopReason(finish string) string {
	switch finish {
	case "length":
		return "max_tokens"
	case "tool_calls":
		return "tool_use"
	}
	return "end_turn"
}

// anthropicToolID is the script's tool call id the Anthropic way: toolu_….
func anthropicToolID(tc *ToolCall) string {
	return "toolu_" + strings.TrimPrefix(tc.ID, "call_")
}

// anthropicReply writes a non-streamed Message.
func anthropicReply(w http.ResponseWriter, model string, sc *Script, thinks bool) {
	b := make([]byte, 0, 320+len(model)+sc.Tokens*8)
	b = append(b, `{"id":"msg_fake_`...)
	b = append(b, sc.ID...)
	b = append(b, `","type":"message","role":"assistant","model":`...)
	b = appendJSONString(b, model)
	b = append(b, `,"content":[`...)
	if thinks {
		b = append(b, `{"type":"thinking","thinking":"`+AnthropicThinking+`","signature":"`+AnthropicSignature+`"},`...)
	}
	if tc := sc.ToolCall; tc != nil {
		b = append(b, `{"type":"tool_use","id":`...)
		b = appendJSONString(b, anthropicToolID(tc))
		b = append(b, `,"name":`...)
		b = appendJSONString(b, tc.Name)
		b = append(b, `,"input":`...)
		b = append(b, tc.Arguments...)
		b = append(b, '}')
	} else if sc.Tokens > 0 {
		b = append(b, `{"type":"text","text":`...)
		b = appendJSONString(b, sc.ReplyText())
		b = append(b, '}')
	}
	b = append(b, `],"stop_reason":"`...)
	b = append(b, anthropicStopReason(sc.Finish)...)
	b = append(b, `","stop_sequence":null`...)
	if sc.Fault != FaultNoUsage {
		b = append(b, `,"usage":{`...)
		b = appendAnthropicUsage(b, sc, sc.Completion(sc.Tokens))
		b = append(b, '}')
	}
	b = append(b, "}\n"...)

	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Request-Id", "req_fake_"+sc.ID)
	writeWhole(w, sc.Fault, b, func() {
		writeAnthropicError(w, http.StatusInternalServerError, "api_error", "Internal server error", "req_fake_"+sc.ID)
	})
}

// anthropicEvents writes named SSE events.
type anthropicEvents struct {
	w       http.ResponseWriter
	flusher http.Flusher
	buf     []byte
}

// send writes one event: its name and its data; false when the client left.
func (e *anthropicEvents) send(name string, data []byte) bool {
	b := append(e.buf[:0], "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	e.buf = b
	return writeFlush(e.w, e.flusher, b)
}

// anthropicToolFragments splits the tool call's arguments the way the API
// streams them: an empty fragment first, then pieces of the JSON text.
func anthropicToolFragments(args string) []string {
	frags := []string{""}
	for len(args) > 0 {
		n := min(len(args), 7)
		frags = append(frags, args[:n])
		args = args[n:]
	}
	return frags
}

// anthropicStream writes a Messages event stream: message_start,
// content_block_start, ping, content_block_delta per word (or tool input
// fragment), content_block_stop, message_delta, message_stop.
func (s *Server) anthropicStream(w http.ResponseWriter, r *http.Request, model string, sc *Script, thinks bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Request-Id", "req_fake_"+sc.ID)
	w.WriteHeader(http.StatusOK)
	ev := &anthropicEvents{w: w, buf: make([]byte, 0, 512)}
	ev.flusher, _ = w.(http.Flusher)
	ctx := r.Context()

	b := append([]byte(nil), `{"type":"message_start","message":{"id":"msg_fake_`...)
	b = append(b, sc.ID...)
	b = append(b, `","type":"message","role":"assistant","model":`...)
	b = appendJSONString(b, model)
	b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null`...)
	if sc.Fault != FaultNoUsage {
		b = append(b, `,"usage":{`...)
		b = appendAnthropicUsage(b, sc, 1)
		b = append(b, '}')
	}
	b = append(b, "}}"...)
	if !ev.send("message_start", b) {
		return
	}

	// A thinking block first when thinking is on: the content block after it has index 1.
	idx := "0"
	if thinks {
		idx = "1"
		if !ev.send("content_block_start", []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)) ||
			!ev.send("content_block_delta", []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"`+AnthropicThinking+`"}}`)) ||
			!ev.send("content_block_delta", []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+AnthropicSignature+`"}}`)) ||
			!ev.send("content_block_stop", []byte(`{"type":"content_block_stop","index":0}`)) {
			return
		}
	}

	// The pieces streamed as deltas: words, or fragments of the tool input.
	var pieces []string
	if tc := sc.ToolCall; tc != nil {
		b = append(b[:0], `{"type":"content_block_start","index":`+idx+`,"content_block":{"type":"tool_use","id":`...)
		b = appendJSONString(b, anthropicToolID(tc))
		b = append(b, `,"name":`...)
		b = appendJSONString(b, tc.Name)
		b = append(b, `,"input":{}}}`...)
		pieces = anthropicToolFragments(tc.Arguments)
	} else {
		b = append(b[:0], `{"type":"content_block_start","index":`+idx+`,"content_block":{"type":"text","text":""}}`...)
		for i := 0; i < sc.Tokens && sc.JSON == ""; i++ {
			pieces = append(pieces, Token(i))
		}
		if sc.JSON != "" {
			pieces = []string{sc.JSON}
		}
	}
	if !ev.send("content_block_start", b) || !ev.send("ping", []byte(`{"type": "ping"}`)) {
		return
	}

	// Where a fault interrupts the stream: half way, after at least one piece.
	stop := len(pieces)
	switch sc.Fault {
	case FaultCut, FaultMalformed, FaultMidstreamError, FaultStall:
		if sc.ToolCall == nil {
			stop = sc.StreamStop()
		} else {
			stop = min(len(pieces), max(2, len(pieces)/2)) // the empty first fragment carries nothing
		}
	}
	pace := s.Pacer()
	if pace != nil {
		defer pace.Stop()
	}
	for i := 0; i < stop; i++ {
		if !s.Pace(ctx, pace) {
			return
		}
		b = append(b[:0], `{"type":"content_block_delta","index":`+idx+`,"delta":`...)
		if sc.ToolCall != nil {
			b = append(b, `{"type":"input_json_delta","partial_json":`...)
		} else {
			b = append(b, `{"type":"text_delta","text":`...)
		}
		b = appendJSONString(b, pieces[i])
		b = append(b, "}}"...)
		if !ev.send("content_block_delta", b) {
			return
		}
	}

	switch sc.Fault {
	case FaultCut:
		Abort() // drop the connection: no message_delta, no message_stop
	case FaultStall:
		s.Hold(ctx)
		return
	case FaultMalformed:
		_, _ = w.Write([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"tok\n\n"))
		return
	case FaultMidstreamError:
		ev.send("error", []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
		return
	}

	if !ev.send("content_block_stop", []byte(`{"type":"content_block_stop","index":`+idx+`}`)) {
		return
	}
	b = append(b[:0], `{"type":"message_delta","delta":{"stop_reason":"`...)
	b = append(b, anthropicStopReason(sc.Finish)...)
	b = append(b, `","stop_sequence":null}`...)
	if sc.Fault != FaultNoUsage {
		b = append(b, `,"usage":{"output_tokens":`...)
		b = strconv.AppendInt(b, int64(sc.Completion(sc.Tokens)), 10)
		b = appendServerToolUse(b, sc)
		b = append(b, '}')
	}
	b = append(b, '}')
	if !ev.send("message_delta", b) {
		return
	}
	ev.send("message_stop", []byte(`{"type":"message_stop"}`))
}

// writeAnthropicStatusFault answers a numeric fault with the error Anthropic sends for that status.
func writeAnthropicStatusFault(w http.ResponseWriter, status int, model, reqID string) {
	typ, msg := "invalid_request_error", http.StatusText(status)
	switch {
	case status == http.StatusBadRequest:
		msg = "prompt is too long: 200001 tokens > 200000 maximum"
	case status == http.StatusUnauthorized:
		typ, msg = "authentication_error", "invalid x-api-key"
	case status == http.StatusPaymentRequired:
		typ, msg = "billing_error", anthropicCreditMessage
	case status == http.StatusForbidden:
		typ, msg = "permission_error", "Your API key does not have permission to use the specified resource."
	case status == http.StatusNotFound:
		typ, msg = "not_found_error", "model: "+model
	case status == http.StatusRequestEntityTooLarge:
		typ, msg = "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case status == http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "2")
		typ, msg = "rate_limit_error", "This request would exceed the rate limit for your organization. Please try again later."
	case status == http.StatusGatewayTimeout:
		typ, msg = "timeout_error", "Request timed out"
	case status == 529:
		typ, msg = "overloaded_error", "Overloaded"
	case status >= 500:
		typ, msg = "api_error", "Internal server error"
	}
	writeAnthropicError(w, status, typ, msg, reqID)
}

// writeAnthropicError writes Anthropic's error body.
func writeAnthropicError(w http.ResponseWriter, status int, typ, msg, reqID string) {
	b := make([]byte, 0, 96+len(msg))
	b = append(b, `{"type":"error","error":{"type":`...)
	b = appendJSONString(b, typ)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, '}')
	if reqID != "" {
		b = append(b, `,"request_id":`...)
		b = appendJSONString(b, reqID)
		w.Header().Set("Request-Id", reqID)
	}
	b = append(b, "}\n"...)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
