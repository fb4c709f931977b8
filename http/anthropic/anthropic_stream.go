package anthropic

import (
	"bufio"
	"bytes"
	"encoding/json"

	"github.com/shlyuz/shlyuz/http/internal/api"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// AnthropicSink writes Anthropic's event stream: message_start, ping, a
// content_block_start / _delta / _stop run per block (text, thinking,
// tool_use with input_json_delta), message_delta with the stop reason and
// usage, message_stop after the settlement. An Anthropic upstream's own
// events pass as they are (restamped with our id and model); every other
// upstream's chat chunks are turned into these events here.
type AnthropicSink struct {
	Id, Model string
	Prompt    int64 // the prompt estimate for message_start's usage

	native  bool   // the upstream's own events are being passed on
	started bool   // message_start was written
	block   string // the open block's type; "" when none is open
	index   int    // the open block's index (the next block's when none is open)
	tool    int    // the chat tool call index the open tool_use block streams
	finish  string // the chat finish_reason seen
}

// ChatChunk is what the sink reads of a chat.completion.chunk (the shared shape).
type ChatChunk = api.ChatChunk

func (as *AnthropicSink) Event(w *bufio.Writer, ev *shlyuz.StreamEvent) {
	if ev.Native != nil {
		as.native = true
		if bytes.HasPrefix(ev.Native, []byte("event: message_start\n")) {
			as.writeNativeStart(w, ev.Native)
			return
		}
		_, _ = w.Write(ev.Native)
		return
	}
	if ev.Data == nil || as.native {
		return
	}
	var ch ChatChunk
	if json.Unmarshal(ev.Data, &ch) != nil || len(ch.Choices) == 0 {
		return
	}
	as.start(w)
	c := &ch.Choices[0]
	if r := c.Delta.Reasoning; r != nil && *r != "" {
		as.open(w, "thinking", anthropicOut{Type: "thinking", Thinking: new(string), Signature: new(string)})
		as.delta(w, map[string]any{"type": "thinking_delta", "thinking": *r})
	}
	if t := c.Delta.Content; t != nil && *t != "" {
		as.open(w, "text", anthropicOut{Type: "text", Text: new(string)})
		as.delta(w, map[string]any{"type": "text_delta", "text": *t})
	}
	for _, tc := range c.Delta.ToolCalls {
		if as.block != "tool_use" || tc.Index != as.tool {
			as.close(w)
			as.tool = tc.Index
			as.open(w, "tool_use", anthropicOut{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name, Input: json.RawMessage("{}")})
		}
		if tc.Function.Arguments != "" {
			as.delta(w, map[string]any{"type": "input_json_delta", "partial_json": tc.Function.Arguments})
		}
	}
	if c.FinishReason != "" {
		as.finish = c.FinishReason
	}
}

// writeNativeStart passes an upstream's message_start on with our id and model.
func (as *AnthropicSink) writeNativeStart(w *bufio.Writer, ev []byte) {
	data, ok := bytes.CutPrefix(bytes.TrimSpace(ev[len("event: message_start\n"):]), []byte("data: "))
	var m map[string]json.RawMessage
	if ok && json.Unmarshal(data, &m) == nil && m["message"] != nil {
		m["message"] = restamp(m["message"], as.Id, as.Model)
		if b, err := plainjson.Marshal(m); err == nil {
			api.WriteNamedEvent(w, "message_start", b)
			as.started = true
			return
		}
	}
	_, _ = w.Write(ev)
}

// start writes message_start and a ping, once.
func (as *AnthropicSink) start(w *bufio.Writer) {
	if as.started {
		return
	}
	as.started = true
	as.write(w, "message_start", map[string]any{"type": "message_start", "message": &anthropicMessage{
		ID: as.Id, Type: "message", Role: "assistant", Model: as.Model, Content: []anthropicOut{},
		Usage: &anthropicUsage{InputTokens: as.Prompt},
	}})
	as.KeepAlive(w)
}

// open starts a block of the type unless one is open already.
func (as *AnthropicSink) open(w *bufio.Writer, typ string, b anthropicOut) {
	if as.block == typ && typ != "tool_use" {
		return
	}
	as.close(w)
	as.block = typ
	as.write(w, "content_block_start", map[string]any{"type": "content_block_start", "index": as.index, "content_block": b})
}

func (as *AnthropicSink) delta(w *bufio.Writer, d map[string]any) {
	as.write(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": as.index, "delta": d})
}

// close ends the open block, if any.
func (as *AnthropicSink) close(w *bufio.Writer) {
	if as.block == "" {
		return
	}
	as.write(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": as.index})
	as.block = ""
	as.index++
}

func (as *AnthropicSink) write(w *bufio.Writer, name string, v any) {
	b, err := plainjson.Marshal(v)
	if err != nil {
		return
	}
	api.WriteNamedEvent(w, name, b)
}

func (as *AnthropicSink) KeepAlive(w *bufio.Writer) {
	api.WriteNamedEvent(w, "ping", []byte(`{"type":"ping"}`))
}

func (as *AnthropicSink) End(w *bufio.Writer, outcome error, receipt *actors.Receipt) {
	if outcome != nil {
		api.WriteAnthropicErrorEvent(w, shlyuz.AsError(outcome))
		return
	}
	if !as.native {
		as.start(w)
		as.close(w)
		finish := as.finish
		if finish == "" {
			finish = receipt.FinishReason
		}
		as.write(w, "message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stopReason(finish), "stop_sequence": nil},
			"usage": anthropicUsageOf(receipt)})
	}
	api.WriteNamedEvent(w, "message_stop", []byte(`{"type":"message_stop"}`))
}
