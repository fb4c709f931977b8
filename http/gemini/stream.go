package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sort"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// Sink writes a streamGenerateContent reply: each chunk a
// GenerateContentResponse, as "data: …" events (alt=sse) or as the elements
// of one JSON array (Google's stream without alt). A Gemini upstream's own
// chunks pass as they are; every other upstream's chat chunks are turned into
// chunks here, text and thoughts as they come, each function call whole once
// its arguments are, and a last chunk with finishReason and usageMetadata
// after the settlement. A failure is Google's error object in place of a
// chunk.
type Sink struct {
	ID, Model string
	SSE       bool

	sent   int                       // chunks written
	native bool                      // the upstream's own chunks are being passed on
	calls  map[callKey]*functionCall // chat tool calls being streamed
	order  []callKey                 // their keys, in order of arrival
	args   map[callKey]*bytes.Buffer // their arguments so far
	finish map[int]string            // finish_reason by choice
}

// callKey is a streamed tool call's place: its choice and its index there.
type callKey struct{ choice, index int }

// write frames one chunk.
func (s *Sink) write(w *bufio.Writer, chunk []byte) {
	switch {
	case s.SSE:
		_, _ = w.WriteString("data: ")
		_, _ = w.Write(chunk)
		_, _ = w.WriteString("\r\n\r\n")
	case s.sent == 0:
		_ = w.WriteByte('[')
		_, _ = w.Write(chunk)
	default:
		_, _ = w.WriteString(",\r\n")
		_, _ = w.Write(chunk)
	}
	s.sent++
}

func (s *Sink) Event(w *bufio.Writer, ev *shlyuz.StreamEvent) {
	if ev.Native != nil {
		s.native = true
		s.write(w, ev.Native)
		return
	}
	if ev.Data == nil || s.native {
		return
	}
	var ch api.ChatChunk
	if json.Unmarshal(ev.Data, &ch) != nil {
		return
	}
	out := response{ModelVersion: s.Model, ResponseID: s.ID}
	for _, c := range ch.Choices {
		var parts []outPart
		if r := c.Delta.Reasoning; r != nil && *r != "" {
			parts = append(parts, outPart{Text: r, Thought: true})
		}
		if t := c.Delta.Content; t != nil && *t != "" {
			parts = append(parts, outPart{Text: t})
		}
		for _, tc := range c.Delta.ToolCalls {
			key := callKey{c.Index, tc.Index}
			if s.calls == nil {
				s.calls, s.args = map[callKey]*functionCall{}, map[callKey]*bytes.Buffer{}
			}
			fc := s.calls[key]
			if fc == nil {
				fc = &functionCall{}
				s.calls[key], s.args[key] = fc, &bytes.Buffer{}
				s.order = append(s.order, key)
			}
			if tc.ID != "" {
				fc.ID = tc.ID
			}
			if tc.Function.Name != "" {
				fc.Name = tc.Function.Name
			}
			s.args[key].WriteString(tc.Function.Arguments)
		}
		if c.FinishReason != "" {
			if s.finish == nil {
				s.finish = map[int]string{}
			}
			s.finish[c.Index] = c.FinishReason
		}
		if len(parts) > 0 {
			out.Candidates = append(out.Candidates, candidate{Content: outContent{Role: "model", Parts: parts}, Index: c.Index})
		}
	}
	if len(out.Candidates) == 0 {
		return
	}
	if b, err := plainjson.Marshal(out); err == nil {
		s.write(w, b)
	}
}

func (s *Sink) KeepAlive(w *bufio.Writer) { api.WriteGeminiKeepAlive(w) }

func (s *Sink) End(w *bufio.Writer, outcome error, receipt *actors.Receipt) {
	switch {
	case outcome != nil:
		s.write(w, api.GeminiErrorJSON(shlyuz.AsError(outcome)))
	case !s.native:
		s.write(w, s.last(receipt))
	}
	if !s.SSE {
		if s.sent == 0 {
			_ = w.WriteByte('[')
		}
		_ = w.WriteByte(']')
	}
}

// last is the chunk that ends a translated stream: the function calls,
// whole, and every candidate's finishReason, with the usage.
func (s *Sink) last(r *actors.Receipt) []byte {
	out := response{UsageMetadata: usageOf(r), ModelVersion: s.Model, ResponseID: s.ID}
	byChoice := map[int][]outPart{}
	for _, key := range s.order {
		fc := s.calls[key]
		fc.Args = argsOf(s.args[key].String())
		byChoice[key.choice] = append(byChoice[key.choice], outPart{FunctionCall: fc})
	}
	choices := []int{0}
	for i := range s.finish {
		if i != 0 {
			choices = append(choices, i)
		}
	}
	for i := range byChoice {
		if _, ok := s.finish[i]; !ok && i != 0 {
			choices = append(choices, i)
		}
	}
	sort.Ints(choices)
	for _, i := range choices {
		parts := byChoice[i]
		if len(parts) == 0 {
			empty := ""
			parts = []outPart{{Text: &empty}}
		}
		finish := s.finish[i]
		if finish == "" {
			finish = r.FinishReason
		}
		out.Candidates = append(out.Candidates, candidate{Content: outContent{Role: "model", Parts: parts},
			FinishReason: finishReason(finish), Index: i})
	}
	b, _ := plainjson.Marshal(out)
	return b
}
