package http

import (
	"bufio"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// LeftOutHeader names what a request asked for that was left out because
// no upstream of its model carries it ("tools.web_search"); the generation
// record lists it under dropped_parameters.
const LeftOutHeader = "X-Shlyuz-Left-Out"

// responses is POST /api/v1/responses, OpenAI's Responses API, stateless:
// the request is put in chat's shape, reserved, served, settled and
// recorded as a chat completion (the response's id is its X-Generation-Id),
// and the reply told as a Response or its typed event stream.
func (s *Server) responses(c *fiber.Ctx) error {
	body := ownedBody(c) // raw keeps spans of it for the reply
	call, req, perr := parseResponses(body)
	if perr != nil {
		return perr
	}
	raw := req.raw // spans of body
	call.KeyHash = c.Locals(localKeyHash).(string)
	call.GenerationID = newID("gen-")
	c.Set("X-Generation-Id", call.GenerationID)
	if len(req.leftOut) > 0 { // hosted tools no upstream runs: served without them, and told
		call.LeftOut = req.leftOut
		c.Set(LeftOutHeader, strings.Join(req.leftOut, ", "))
	}
	s.announceModel(c, call.Models[0])
	if call.Stream {
		st, err := s.gw.OpenStream(c.UserContext(), call)
		if err != nil {
			return err
		}
		s.serveStream(c, st, call.GenerationID, &responsesSink{b: newResponseBuilder(call.GenerationID, st.Model(), req, raw)})
		return nil
	}
	resp, receipt, err := s.gw.Complete(c.UserContext(), call)
	if err != nil {
		return err
	}
	setDecidedMaxTokens(c, receipt.MaxTokens)
	b := newResponseBuilder(call.GenerationID, receipt.Model, req, raw)
	finish := b.fromChoices(resp.Choices)
	if finish == "" {
		finish = receipt.FinishReason
	}
	defer bodyDone(c) // c.JSON copies what the Response echoes of the body (raw) into the reply
	return c.JSON(b.response(receipt, finish, nil))
}

// responsesSink writes the Responses stream: response.created and
// .in_progress, each item's added / delta / done events, then
// response.completed, .incomplete or .failed with the whole Response; every
// event numbered by sequence_number.
type responsesSink struct {
	b       *responseBuilder
	w       *bufio.Writer
	seq     int
	started bool
	finish  string
}

func (rs *responsesSink) emit(typ string, ev map[string]any) {
	ev["type"] = typ
	ev["sequence_number"] = rs.seq
	rs.seq++
	b, err := plainjson.Marshal(ev)
	if err != nil {
		return
	}
	writeNamedEvent(rs.w, typ, b)
}

func (rs *responsesSink) start(w *bufio.Writer) {
	rs.w = w
	if rs.started {
		return
	}
	rs.started = true
	rs.b.emit = rs.emit
	rs.emit("response.created", map[string]any{"response": rs.b.response(nil, "", nil)})
	rs.emit("response.in_progress", map[string]any{"response": rs.b.response(nil, "", nil)})
}

func (rs *responsesSink) event(w *bufio.Writer, ev *shlyuz.StreamEvent) {
	if ev.Data == nil {
		return
	}
	var ch chatChunk
	if json.Unmarshal(ev.Data, &ch) != nil || len(ch.Choices) == 0 {
		return
	}
	rs.start(w)
	c := &ch.Choices[0]
	if r := c.Delta.Reasoning; r != nil && *r != "" {
		rs.b.reasoning(*r)
	}
	if t := c.Delta.Content; t != nil && *t != "" {
		rs.b.text(*t)
	}
	for _, tc := range c.Delta.ToolCalls {
		rs.b.toolCall(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
	}
	if c.FinishReason != "" {
		rs.finish = c.FinishReason
	}
}

func (rs *responsesSink) keepAlive(w *bufio.Writer) { _, _ = w.WriteString(": keep-alive\n\n") }

func (rs *responsesSink) end(w *bufio.Writer, outcome error, receipt *actors.Receipt) {
	rs.start(w)
	rs.b.closeLast()
	if outcome != nil {
		rs.emit("response.failed", map[string]any{"response": rs.b.response(nil, "", shlyuz.AsError(outcome))})
		return
	}
	finish := rs.finish
	if finish == "" {
		finish = receipt.FinishReason
	}
	r := rs.b.response(receipt, finish, nil)
	typ := "response.completed"
	if r.Status == "incomplete" {
		typ = "response.incomplete"
	}
	rs.emit(typ, map[string]any{"response": r})
}
