package http

import (
	"bufio"
	"bytes"
	"encoding/json"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// anthropicSink writes Anthropic's event stream: message_start, ping, a
// content_block_start / _delta / _stop run per block (text, thinking,
// tool_use with input_json_delta), message_delta with the stop reason and
// usage, message_stop after the settlement. An Anthropic upstream's own
// events pass as they are (restamped with our id and model); every other
// upstream's chat chunks are turned into these events here.
type anthropicSink struct {
	id, model string
	prompt    int64 // the prompt estimate for message_start's usage

	native  bool   // the upstream's own events are being passed on
	started bool   // message_start was written
	block   string // the open block's type; "" when none is open
	index   int    // the open block's index (the next block's when none is open)
	tool    int    // the chat tool call index the open tool_use block streams
	finish  string // the chat finish_reason seen
}

// chatChunk is what the sink reads of a chat.completion.chunk.
type chatChunk struct {
	Choices []struct {
		Delta struct {
			Content   *string `json:"content"`
			Reasoning *string `json:"reasoning"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

func (as *anthropicSink) event(w *bufio.Writer, ev *shlyuz.StreamEvent) {
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
	var ch chatChunk
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
func (as *anthropicSink) writeNativeStart(w *bufio.Writer, ev []byte) {
	data, ok := bytes.CutPrefix(bytes.TrimSpace(ev[len("event: message_start\n"):]), []byte("data: "))
	var m map[string]json.RawMessage
	if ok && json.Unmarshal(data, &m) == nil && m["message"] != nil {
		m["message"] = restamp(m["message"], as.id, as.model)
		if b, err := plainjson.Marshal(m); err == nil {
			writeNamedEvent(w, "message_start", b)
			as.started = true
			return
		}
	}
	_, _ = w.Write(ev)
}

// start writes message_start and a ping, once.
func (as *anthropicSink) start(w *bufio.Writer) {
	if as.started {
		return
	}
	as.started = true
	as.write(w, "message_start", map[string]any{"type": "message_start", "message": &anthropicMessage{
		ID: as.id, Type: "message", Role: "assistant", Model: as.model, Content: []anthropicOut{},
		Usage: &anthropicUsage{InputTokens: as.prompt},
	}})
	as.keepAlive(w)
}

// open starts a block of the type unless one is open already.
func (as *anthropicSink) open(w *bufio.Writer, typ string, b anthropicOut) {
	if as.block == typ && typ != "tool_use" {
		return
	}
	as.close(w)
	as.block = typ
	as.write(w, "content_block_start", map[string]any{"type": "content_block_start", "index": as.index, "content_block": b})
}

func (as *anthropicSink) delta(w *bufio.Writer, d map[string]any) {
	as.write(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": as.index, "delta": d})
}

// close ends the open block, if any.
func (as *anthropicSink) close(w *bufio.Writer) {
	if as.block == "" {
		return
	}
	as.write(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": as.index})
	as.block = ""
	as.index++
}

func (as *anthropicSink) write(w *bufio.Writer, name string, v any) {
	b, err := plainjson.Marshal(v)
	if err != nil {
		return
	}
	writeNamedEvent(w, name, b)
}

func (as *anthropicSink) keepAlive(w *bufio.Writer) {
	writeNamedEvent(w, "ping", []byte(`{"type":"ping"}`))
}

func (as *anthropicSink) end(w *bufio.Writer, outcome error, receipt *actors.Receipt) {
	if outcome != nil {
		writeAnthropicErrorEvent(w, shlyuz.AsError(outcome))
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
	writeNamedEvent(w, "message_stop", []byte(`{"type":"message_stop"}`))
}
