package http

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/http/responses"
	"github.com/shlyuz/shlyuz/internal/golden"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// runGolden runs fn on every testdata/<dir>/*<ext> and compares its output
// with the .golden file beside it (rewritten under -update).
func runGolden(t *testing.T, dir, ext string, fn func(t *testing.T, raw []byte) []byte) {
	golden.Run(t, dir, ext, func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		return fn(t, raw)
	})
}

func describe(err *shlyuz.Error) []byte {
	param := ""
	if err.Param != nil {
		param = " param=" + *err.Param
	}
	return fmt.Appendf(nil, "error: status=%d code=%s%s message=%q\n", err.Status, err.Code, param, err.Message)
}

func indent(t *testing.T, v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestMessagesRequestGolden: an Anthropic Messages body in chat's shape, for
// the upstreams that do not speak Anthropic.
func TestMessagesRequestGolden(t *testing.T) {
	runGolden(t, "messages/request", ".json", func(t *testing.T, raw []byte) []byte {
		call, err := anthropic.ParseMessages(raw, func(string, ...string) string { return "" }, false)
		if err != nil {
			return describe(err)
		}
		out := fmt.Appendf(nil, "models=%v stream=%v max_tokens=%d prompt_reserve=%d\n", call.Models, call.Stream, call.MaxTokens, call.Prompt.Reserve)
		if u := call.Native.Unfit; u != nil {
			out = append(append(out, "unfit "...), describe(u)...)
		}
		return append(out, indent(t, call.Fields)...)
	})
}

// chatReply is a reply golden case: a chat reply to render in another protocol.
type chatReply struct {
	Finish  string          `json:"finish"`
	Usage   shlyuz.Usage    `json:"usage"`
	Choices json.RawMessage `json:"choices"`
}

func readChatReply(t *testing.T, raw []byte) chatReply {
	t.Helper()
	var in chatReply
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// TestMessagesReplyGolden: a chat reply as Anthropic's Message.
func TestMessagesReplyGolden(t *testing.T) {
	runGolden(t, "messages/reply", ".json", func(t *testing.T, raw []byte) []byte {
		in := readChatReply(t, raw)
		r := &actors.Receipt{Usage: in.Usage, Model: "public/model", FinishReason: in.Finish}
		return indent(t, anthropic.AnthropicMessageOf(in.Choices, "gen-1", r))
	})
}

// TestMessagesStreamGolden: chat chunks as Anthropic's event stream.
func TestMessagesStreamGolden(t *testing.T) {
	runGolden(t, "messages/stream", ".jsonl", func(t *testing.T, raw []byte) []byte {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		sink := &anthropic.AnthropicSink{Id: "gen-1", Model: "public/model", Prompt: 12}
		for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
			sink.Event(w, &shlyuz.StreamEvent{Data: line})
		}
		sink.End(w, nil, &actors.Receipt{Usage: shlyuz.Usage{PromptTokens: 12, CompletionTokens: 7, CachedTokens: 2}, FinishReason: "stop"})
		_ = w.Flush()
		buf.WriteString("--- failed instead:\n")
		sink.End(w, errors.New("upstream cut"), nil)
		_ = w.Flush()
		return buf.Bytes()
	})
}

// An Anthropic upstream's own events pass as they are but for message_start,
// which carries our id and model; the gateway's message_stop ends the stream.
func TestMessagesNativeStreamRestamped(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	sink := &anthropic.AnthropicSink{Id: "gen-1", Model: "anthropic/claude"}
	for _, ev := range []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_up\",\"model\":\"claude-x\",\"usage\":{\"input_tokens\":5}}}\n\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\n",
	} {
		sink.Event(w, &shlyuz.StreamEvent{Native: []byte(ev), Data: []byte(`{"choices":[{"delta":{"content":"x"}}]}`)})
	}
	sink.End(w, nil, &actors.Receipt{})
	_ = w.Flush()
	want := "event: message_start\ndata: {\"message\":{\"id\":\"gen-1\",\"model\":\"anthropic/claude\",\"usage\":{\"input_tokens\":5}},\"type\":\"message_start\"}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestResponsesRequestGolden: a Responses request in chat's shape.
func TestResponsesRequestGolden(t *testing.T) {
	runGolden(t, "responses/request", ".json", func(t *testing.T, raw []byte) []byte {
		call, req, err := responses.ParseResponses(raw)
		if err != nil {
			return describe(err)
		}
		out := fmt.Appendf(nil, "models=%v stream=%v max_tokens=%d prompt_reserve=%d\n", call.Models, call.Stream, call.MaxTokens, call.Prompt.Reserve)
		if len(req.LeftOut()) > 0 {
			out = fmt.Appendf(out, "left out %v\n", req.LeftOut())
		}
		if len(req.Namespaced()) > 0 {
			out = fmt.Appendf(out, "namespaced %v\n", req.Namespaced())
		}
		return append(out, indent(t, call.Fields)...)
	})
}

// responsesCase is the request the reply and stream cases answer.
const responsesCase = `{"model":"public/model","input":"x","instructions":"Be brief.","max_output_tokens":50,"tools":[{"type":"function","name":"f"}],"metadata":{"k":"v"}}`

func testBuilder(t *testing.T) *responses.ResponseBuilder {
	_, req, err := responses.ParseResponses([]byte(responsesCase))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal([]byte(responsesCase), &raw)
	b := responses.NewResponseBuilder("gen-1", "public/model", req, raw)
	b.Made = 1760000000
	return b
}

// TestResponsesReplyGolden: a chat reply as a Response.
func TestResponsesReplyGolden(t *testing.T) {
	runGolden(t, "responses/reply", ".json", func(t *testing.T, raw []byte) []byte {
		in := readChatReply(t, raw)
		b := testBuilder(t)
		finish := b.FromChoices(in.Choices)
		return indent(t, b.Response(&actors.Receipt{Usage: in.Usage, Model: "public/model", Credits: 1234}, finish, nil))
	})
}

// TestResponsesStreamGolden: chat chunks as the Responses event stream.
func TestResponsesStreamGolden(t *testing.T) {
	runGolden(t, "responses/stream", ".jsonl", func(t *testing.T, raw []byte) []byte {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		sink := &responses.ResponsesSink{B: testBuilder(t)}
		for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
			sink.Event(w, &shlyuz.StreamEvent{Data: line})
		}
		sink.End(w, nil, &actors.Receipt{Usage: shlyuz.Usage{PromptTokens: 12, CompletionTokens: 7, ReasoningTokens: 3}, Credits: 99})
		_ = w.Flush()
		buf.WriteString("--- failed instead:\n")
		failed := &responses.ResponsesSink{B: testBuilder(t)}
		failed.Event(w, &shlyuz.StreamEvent{Data: bytes.Split(raw, []byte("\n"))[1]})
		failed.End(w, shlyuz.ErrUpstream("cut"), nil)
		_ = w.Flush()
		return buf.Bytes()
	})
}
