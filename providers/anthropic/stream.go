package anthropic

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/sse"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// decoder turns Anthropic's named SSE events into OpenAI chunks.
type decoder struct {
	cw *chunkWriter
	o  options

	json     map[int]bool // content block indexes of the response_format's forced tool
	answered bool         // that tool was called
	nDetails int          // reasoning_details entries told so far

	usage    streamUsage
	tools    map[int]*toolBlock // content block index → the tool call it streams
	nTools   int
	finished bool // a message_delta said why the message stopped
}

// toolBlock is a tool_use content block being streamed.
type toolBlock struct {
	index     int             // the tool call's index in OpenAI's tool_calls
	input     json.RawMessage // the input of content_block_start, when not empty
	gotDeltas bool
}

// newStream reads an Anthropic SSE stream and emits OpenAI chunks. A ping,
// like a comment, shows the upstream is alive.
func newStream(body *upstream.Body, cw *chunkWriter, o options) *sse.Stream {
	return sse.NewStream(body, &decoder{cw: cw, o: o}, sse.Config{SkipsAlive: true})
}

// End handles the upstream closing the stream without message_stop.
func (dc *decoder) End() error {
	if dc.finished {
		// Everything but the closing message_stop arrived: the reply is whole.
		return io.EOF
	}
	return upstream.EndedEarly()
}

// wireEvent is the data of any stream event; each event type fills its part.
type wireEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Text  json.RawMessage `json:"text"`
		Input json.RawMessage `json:"input"`
		Data  json.RawMessage `json:"data"`
	} `json:"content_block"`
	Delta *struct {
		Type        string          `json:"type"`
		Text        json.RawMessage `json:"text"`
		PartialJSON json.RawMessage `json:"partial_json"`
		Thinking    json.RawMessage `json:"thinking"`
		Signature   json.RawMessage `json:"signature"`
		StopReason  *string         `json:"stop_reason"`
	} `json:"delta"`
	Usage *deltaUsage     `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// Decode handles one event; skip means it produced nothing to send.
func (dc *decoder) Decode(e sse.Event) (ev shlyuz.StreamEvent, skip bool, err error) {
	payload, name := e.Data, string(e.Name)
	if name == "ping" {
		return ev, true, nil
	}
	if len(payload) == 0 {
		if name == "message_stop" {
			return ev, false, io.EOF
		}
		return ev, true, nil
	}
	var w wireEvent
	if err := json.Unmarshal(payload, &w); err != nil {
		e := upstream.Malformed("a stream event is not valid JSON")
		e.Cause = err
		return ev, false, e
	}
	if name == "" {
		name = w.Type
	}
	switch name {
	case "message_start":
		if w.Message != nil {
			dc.usage.start(w.Message.Usage)
		}
		return dc.emit(dc.cw.role(), 0), false, nil

	case "content_block_start":
		cb := w.ContentBlock
		if cb == nil {
			return ev, false, upstream.Malformed("a content_block_start has no content block")
		}
		switch cb.Type {
		case "text":
			if nonEmptyString(cb.Text) {
				return dc.emit(dc.cw.text(cb.Text), 1), false, nil
			}
		case "redacted_thinking":
			if dc.o.reasoning && nonEmptyString(cb.Data) {
				return dc.emit(dc.detail("reasoning.encrypted", "data", cb.Data, false), 0), false, nil
			}
		case "tool_use":
			if dc.o.jsonTool != "" && cb.Name == dc.o.jsonTool {
				if dc.json == nil {
					dc.json = make(map[int]bool, 1)
				}
				dc.json[w.Index], dc.answered = true, true
				if len(cb.Input) > 0 && cb.Input[0] == '{' && !emptyObject(cb.Input) {
					args, err := argumentsText(cb.Input)
					if err != nil {
						return ev, false, upstream.Malformed("a tool call's input is not a JSON object")
					}
					return dc.emit(dc.cw.text(plainjson.AppendString(nil, args)), 1), false, nil
				}
				return ev, true, nil
			}
			tb := &toolBlock{index: dc.nTools}
			dc.nTools++
			if len(cb.Input) > 0 && cb.Input[0] == '{' && !emptyObject(cb.Input) {
				tb.input = cb.Input
			}
			if dc.tools == nil {
				dc.tools = make(map[int]*toolBlock, 2)
			}
			dc.tools[w.Index] = tb
			return dc.emit(dc.cw.toolStart(tb.index, cb.ID, cb.Name), 1), false, nil
		}
		// thinking, redacted_thinking and server tool blocks have no place in OpenAI's chunks.
		return ev, true, nil

	case "content_block_delta":
		d := w.Delta
		if d == nil {
			return ev, false, upstream.Malformed("a content_block_delta has no delta")
		}
		switch d.Type {
		case "text_delta":
			if len(d.Text) > 0 && d.Text[0] != '"' {
				return ev, false, upstream.Malformed("a text delta is not a string")
			}
			if nonEmptyString(d.Text) {
				return dc.emit(dc.cw.text(d.Text), 1), false, nil
			}
		case "thinking_delta":
			if dc.o.reasoning && nonEmptyString(d.Thinking) {
				return dc.emit(dc.detail("reasoning.text", "text", d.Thinking, true), 1), false, nil
			}
		case "signature_delta":
			if dc.o.reasoning && nonEmptyString(d.Signature) {
				ev = dc.emit(dc.detail("reasoning.text", "signature", d.Signature, false), 0)
				dc.nDetails++ // the signature closes its thinking block's entry
				return ev, false, nil
			}
		case "input_json_delta":
			if len(d.PartialJSON) > 0 && d.PartialJSON[0] != '"' {
				return ev, false, upstream.Malformed("a tool input delta is not a string")
			}
			if dc.json[w.Index] {
				if nonEmptyString(d.PartialJSON) {
					return dc.emit(dc.cw.text(d.PartialJSON), 1), false, nil
				}
				return ev, true, nil
			}
			if tb := dc.tools[w.Index]; tb != nil && nonEmptyString(d.PartialJSON) {
				tb.gotDeltas = true
				return dc.emit(dc.cw.toolArgs(tb.index, d.PartialJSON), 1), false, nil
			}
		}
		return ev, true, nil

	case "content_block_stop":
		// A tool block whose input came whole in its start and not as deltas.
		if tb := dc.tools[w.Index]; tb != nil && !tb.gotDeltas && tb.input != nil {
			args, err := argumentsText(tb.input)
			if err != nil {
				return ev, false, upstream.Malformed("a tool call's input is not a JSON object")
			}
			tb.gotDeltas = true
			return dc.emit(dc.cw.toolArgs(tb.index, plainjson.AppendString(nil, args)), 1), false, nil
		}
		return ev, true, nil

	case "message_delta":
		dc.usage.delta(w.Usage)
		if w.Delta != nil && w.Delta.StopReason != nil && !dc.finished {
			dc.finished = true
			reason := finishReason(*w.Delta.StopReason)
			if reason == "tool_calls" && dc.answered && dc.nTools == 0 {
				reason = "stop" // the tool was the response_format's answer
			}
			ev = dc.emit(dc.cw.finish(reason), 0)
			ev.FinishReason = reason
			return ev, false, nil
		}
		if w.Usage != nil {
			return shlyuz.StreamEvent{Usage: dc.usage.current()}, false, nil
		}
		return ev, true, nil

	case "message_stop":
		return ev, false, io.EOF

	case "error":
		return ev, false, eventError(parseErrorValue(w.Error))
	}
	return ev, true, nil // ping and event types a newer API adds
}

// emit is an event carrying data; tokens is how many content deltas it carries.
func (dc *decoder) emit(data []byte, tokens int64) shlyuz.StreamEvent {
	dc.usage.counted += tokens
	return shlyuz.StreamEvent{Data: data, Usage: dc.usage.current(), CompletionTokens: tokens}
}

// nonEmptyString reports whether v is a JSON string literal with content.
func nonEmptyString(v json.RawMessage) bool {
	return len(v) > 2 && v[0] == '"'
}

// emptyObject reports whether v is {} (with any whitespace).
func emptyObject(v json.RawMessage) bool {
	return string(bytes.Join(bytes.Fields(v), nil)) == "{}"
}

// detail is a chunk of reasoning: a reasoning_details entry with the field
// (text, signature or data, a JSON string literal), and the text as
// reasoning too when withText.
func (dc *decoder) detail(typ, field string, v json.RawMessage, withText bool) []byte {
	d := make([]byte, 0, 2*len(v)+128)
	d = append(d, '{')
	if withText {
		d = append(d, `"reasoning":`...)
		d = append(d, v...)
		d = append(d, ',')
	}
	d = append(d, `"reasoning_details":[{"type":`...)
	d = plainjson.AppendString(d, typ)
	d = append(d, ',', '"')
	d = append(d, field...)
	d = append(d, `":`...)
	d = append(d, v...)
	d = append(d, `,"format":"`+reasoningFormat+`","index":`...)
	d = strconv.AppendInt(d, int64(dc.nDetails), 10)
	d = append(d, "}]}"...)
	if typ == "reasoning.encrypted" {
		dc.nDetails++
	}
	return dc.cw.chunk(d, "")
}
