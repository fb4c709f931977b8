package responses

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/http/internal/api"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// responseObject is OpenAI's Response. Shlyuz keeps nothing: store is always false.
type responseObject struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	CreatedAt          int64             `json:"created_at"`
	Status             string            `json:"status"`
	Error              *responseError    `json:"error"`
	IncompleteDetails  *incomplete       `json:"incomplete_details"`
	Instructions       json.RawMessage   `json:"instructions"`
	MaxOutputTokens    *int64            `json:"max_output_tokens"`
	Model              string            `json:"model"`
	Output             []any             `json:"output"`
	ParallelToolCalls  bool              `json:"parallel_tool_calls"`
	PreviousResponseID *string           `json:"previous_response_id"`
	Reasoning          map[string]any    `json:"reasoning"`
	Store              bool              `json:"store"`
	Temperature        *float64          `json:"temperature"`
	Text               json.RawMessage   `json:"text"`
	ToolChoice         json.RawMessage   `json:"tool_choice"`
	Tools              json.RawMessage   `json:"tools"`
	TopP               *float64          `json:"top_p"`
	Truncation         string            `json:"truncation"`
	Usage              *responseUsage    `json:"usage"`
	Metadata           map[string]string `json:"metadata"`
}

type responseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type incomplete struct {
	Reason string `json:"reason"`
}

type responseUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int64 `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int64          `json:"total_tokens"`
	Credits     shlyuz.Credits `json:"credits"`
}

func responseUsageOf(r *actors.Receipt) *responseUsage {
	u := &responseUsage{InputTokens: r.Usage.PromptTokens, OutputTokens: r.Usage.CompletionTokens,
		TotalTokens: r.Usage.PromptTokens + r.Usage.CompletionTokens, Credits: r.Credits}
	u.InputTokensDetails.CachedTokens = r.Usage.CachedTokens
	u.OutputTokensDetails.ReasoningTokens = r.Usage.ReasoningTokens
	return u
}

// outItem is one output item being built: reasoning, a message or a function call.
type outItem struct {
	typ, id      string
	text         strings.Builder // the message's text, the reasoning's summary
	callID, name string
	namespace    string // a namespace's function: name is its name there
	args         strings.Builder
	tool         int   // the chat tool call index it comes from
	cites        []any // a message's annotations
	done         bool  // closed: its .done events were told
}

func (it *outItem) render(status string) map[string]any {
	switch it.typ {
	case "reasoning":
		summary := []any{}
		if it.text.Len() > 0 {
			summary = append(summary, map[string]any{"type": "summary_text", "text": it.text.String()})
		}
		return map[string]any{"type": "reasoning", "id": it.id, "summary": summary}
	case "function_call":
		call := map[string]any{"type": "function_call", "id": it.id, "call_id": it.callID, "name": it.name,
			"arguments": it.args.String(), "status": status}
		if it.namespace != "" {
			call["namespace"] = it.namespace
		}
		return call
	}
	content := []any{}
	if status == "completed" {
		content = append(content, outputText(it.text.String(), it.cites))
	}
	return map[string]any{"type": "message", "id": it.id, "status": status, "role": "assistant", "content": content}
}

func outputText(text string, cites []any) map[string]any {
	if cites == nil {
		cites = []any{}
	}
	return map[string]any{"type": "output_text", "text": text, "annotations": cites}
}

// cite adds a web search's citations (chat's url_citation annotations) to
// the message, as the Responses API's url_citation annotations of its text.
func (b *ResponseBuilder) cite(cs []api.URLCitation) {
	for _, c := range cs {
		if c.Type != "url_citation" {
			continue
		}
		a := map[string]any{"type": "url_citation", "url": c.URLCitation.URL, "title": c.URLCitation.Title,
			"start_index": c.URLCitation.StartIndex, "end_index": c.URLCitation.EndIndex}
		b.cites = append(b.cites, a)
		if it := b.current("message"); it != nil {
			b.annotated(it, a)
		}
	}
}

// annotated adds an annotation to the open message item, and tells it.
func (b *ResponseBuilder) annotated(it *outItem, a any) {
	it.cites = append(it.cites, a)
	b.emit("response.output_text.annotation.added", map[string]any{"item_id": it.id, "output_index": len(b.items) - 1,
		"content_index": 0, "annotation_index": len(it.cites) - 1, "annotation": a})
}

// ResponseBuilder builds a Response from chat's deltas and tells each step
// as the Responses stream's typed events (emit; a no-op for a plain reply).
type ResponseBuilder struct {
	req   *responsesRequest
	raw   map[string]json.RawMessage // the request body, for the fields a Response repeats
	id    string
	model string
	Made  int64
	items []*outItem
	cites []any // the web search's citations, on every message item
	emit  func(typ string, ev map[string]any)
}

func NewResponseBuilder(id, model string, req *responsesRequest, raw map[string]json.RawMessage) *ResponseBuilder {
	return &ResponseBuilder{req: req, raw: raw, id: id, model: model, Made: time.Now().Unix(),
		emit: func(string, map[string]any) {}}
}

// current is the open item when it has the type, or nil.
func (b *ResponseBuilder) current(typ string) *outItem {
	if n := len(b.items); n > 0 && b.items[n-1].typ == typ && !b.items[n-1].done {
		return b.items[n-1]
	}
	return nil
}

// open closes the open item and opens one of the type.
func (b *ResponseBuilder) open(typ, prefix string) *outItem {
	b.closeLast()
	it := &outItem{typ: typ, id: prefix + "_" + strings.TrimPrefix(b.id, "gen-") + "_" + strconv.Itoa(len(b.items))}
	b.items = append(b.items, it)
	idx := len(b.items) - 1
	b.emit("response.output_item.added", map[string]any{"output_index": idx, "item": it.render("in_progress")})
	switch typ {
	case "message":
		b.emit("response.content_part.added", map[string]any{"item_id": it.id, "output_index": idx, "content_index": 0, "part": outputText("", nil)})
		for _, a := range b.cites {
			b.annotated(it, a)
		}
	case "reasoning":
		b.emit("response.reasoning_summary_part.added", map[string]any{"item_id": it.id, "output_index": idx, "summary_index": 0,
			"part": map[string]any{"type": "summary_text", "text": ""}})
	}
	return it
}

// closeLast ends the open item, if any.
func (b *ResponseBuilder) closeLast() {
	n := len(b.items)
	if n == 0 {
		return
	}
	it, idx := b.items[n-1], n-1
	if it.done {
		return
	}
	it.done = true
	switch it.typ {
	case "message":
		b.emit("response.output_text.done", map[string]any{"item_id": it.id, "output_index": idx, "content_index": 0, "text": it.text.String()})
		b.emit("response.content_part.done", map[string]any{"item_id": it.id, "output_index": idx, "content_index": 0, "part": outputText(it.text.String(), it.cites)})
	case "reasoning":
		b.emit("response.reasoning_summary_text.done", map[string]any{"item_id": it.id, "output_index": idx, "summary_index": 0, "text": it.text.String()})
		b.emit("response.reasoning_summary_part.done", map[string]any{"item_id": it.id, "output_index": idx, "summary_index": 0,
			"part": map[string]any{"type": "summary_text", "text": it.text.String()}})
	case "function_call":
		b.emit("response.function_call_arguments.done", map[string]any{"item_id": it.id, "output_index": idx, "name": it.name, "arguments": it.args.String()})
	}
	b.emit("response.output_item.done", map[string]any{"output_index": idx, "item": it.render("completed")})
}

// reasoning adds reasoning text.
func (b *ResponseBuilder) reasoning(delta string) {
	it := b.current("reasoning")
	if it == nil {
		it = b.open("reasoning", "rs")
	}
	it.text.WriteString(delta)
	b.emit("response.reasoning_summary_text.delta", map[string]any{"item_id": it.id, "output_index": len(b.items) - 1, "summary_index": 0, "delta": delta})
}

// text adds the message's text.
func (b *ResponseBuilder) text(delta string) {
	it := b.current("message")
	if it == nil {
		it = b.open("message", "msg")
	}
	it.text.WriteString(delta)
	b.emit("response.output_text.delta", map[string]any{"item_id": it.id, "output_index": len(b.items) - 1, "content_index": 0, "delta": delta})
}

// toolCall adds to chat's tool call of the index: its start (id, name) and arguments.
func (b *ResponseBuilder) toolCall(index int, id, name, args string) {
	it := b.current("function_call")
	if it == nil || it.tool != index {
		b.closeLast()
		it = &outItem{typ: "function_call", id: "fc_" + strings.TrimPrefix(b.id, "gen-") + "_" + strconv.Itoa(len(b.items)),
			callID: id, name: name, tool: index}
		if nn, ok := b.req.namespaced[name]; ok { // named back as the client named it
			it.namespace, it.name = nn.namespace, nn.name
		}
		b.items = append(b.items, it)
		b.emit("response.output_item.added", map[string]any{"output_index": len(b.items) - 1, "item": it.render("in_progress")})
	}
	if args != "" {
		it.args.WriteString(args)
		b.emit("response.function_call_arguments.delta", map[string]any{"item_id": it.id, "output_index": len(b.items) - 1, "delta": args})
	}
}

// Response is the Response: in progress (r nil, no failure), finished with
// the receipt, or failed.
func (b *ResponseBuilder) Response(r *actors.Receipt, finish string, failure *shlyuz.Error) *responseObject {
	out := &responseObject{ID: b.id, Object: "response", CreatedAt: b.Made, Status: "in_progress", Model: b.model,
		Output: []any{}, ParallelToolCalls: true, Reasoning: map[string]any{"effort": nil, "summary": nil},
		Text: json.RawMessage(`{"format":{"type":"text"}}`), ToolChoice: json.RawMessage(`"auto"`), Tools: json.RawMessage(`[]`),
		Truncation: "disabled", Metadata: map[string]string{}}
	q := b.req
	switch {
	case q.instructions != nil: // the client's literal, as fastResponses took it
		out.Instructions = q.instructions
	case q.Instructions != "":
		out.Instructions, _ = plainjson.Marshal(q.Instructions)
	}
	out.MaxOutputTokens, out.Temperature, out.TopP = q.MaxOutputTokens, q.Temperature, q.TopP
	if q.ParallelToolCalls != nil {
		out.ParallelToolCalls = *q.ParallelToolCalls
	}
	if q.Reasoning != nil {
		if q.Reasoning.Effort != "" {
			out.Reasoning["effort"] = q.Reasoning.Effort
		}
		if q.Reasoning.Summary != "" {
			out.Reasoning["summary"] = q.Reasoning.Summary
		}
	}
	for k, dst := range map[string]*json.RawMessage{"text": &out.Text, "tool_choice": &out.ToolChoice, "tools": &out.Tools} {
		if v, ok := b.raw[k]; ok && !api.IsNull(v) {
			*dst = v
		}
	}
	if m, ok := b.raw["metadata"]; ok {
		_ = json.Unmarshal(m, &out.Metadata)
	}
	switch {
	case failure != nil:
		out.Status = "failed"
		out.Error = &responseError{Code: failure.Code, Message: failure.Message}
	case r != nil:
		out.Status = "completed"
		switch finish {
		case "length":
			out.Status, out.IncompleteDetails = "incomplete", &incomplete{Reason: "max_output_tokens"}
		case "content_filter":
			out.Status, out.IncompleteDetails = "incomplete", &incomplete{Reason: "content_filter"}
		}
		out.Usage = responseUsageOf(r)
	}
	if r != nil || failure != nil {
		for _, it := range b.items {
			out.Output = append(out.Output, it.render("completed"))
		}
	}
	return out
}

// FromChoices builds the items of a plain chat reply (its first choice).
func (b *ResponseBuilder) FromChoices(choices json.RawMessage) string {
	var cs []anthropic.ChatChoice
	_ = json.Unmarshal(choices, &cs)
	if len(cs) == 0 {
		return ""
	}
	c := &cs[0]
	if c.Message.Reasoning != "" {
		b.reasoning(c.Message.Reasoning)
	}
	b.cite(c.Message.Annotations)
	if t := anthropic.ChatText(c.Message.Content); t != "" {
		b.text(t)
	}
	for i, tc := range c.Message.ToolCalls {
		b.toolCall(i, tc.ID, tc.Function.Name, tc.Function.Arguments)
	}
	b.closeLast()
	return c.FinishReason
}
