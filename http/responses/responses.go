package responses

import (
	"bufio"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/http/internal/api"
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
func (s *server) responses(c *fiber.Ctx) error {
	body := api.OwnedBody(c) // raw keeps spans of it for the reply
	call, req, perr := ParseResponses(body)
	if perr != nil {
		return perr
	}
	raw := req.raw // spans of body
	call.KeyHash = c.Locals(api.LocalKeyHash).(string)
	call.GenerationID = api.NewID("gen-")
	c.Set("X-Generation-Id", call.GenerationID)
	if len(req.leftOut) > 0 { // hosted tools no upstream runs: served without them, and told
		call.LeftOut = req.leftOut
		c.Set(LeftOutHeader, strings.Join(req.leftOut, ", "))
	}
	s.AnnounceModel(c, call.Models[0])
	if call.Stream {
		st, err := s.Gw.OpenStream(c.UserContext(), call)
		if err != nil {
			return err
		}
		s.ServeStream(c, st, call.GenerationID, &ResponsesSink{B: NewResponseBuilder(call.GenerationID, st.Model(), req, raw)})
		return nil
	}
	resp, receipt, err := s.Gw.Complete(c.UserContext(), call)
	if err != nil {
		return err
	}
	api.SetDecidedMaxTokens(c, receipt.MaxTokens)
	b := NewResponseBuilder(call.GenerationID, receipt.Model, req, raw)
	finish := b.FromChoices(resp.Choices)
	if finish == "" {
		finish = receipt.FinishReason
	}
	defer api.BodyDone(c) // c.JSON copies what the Response echoes of the body (raw) into the reply
	return c.JSON(b.Response(receipt, finish, nil))
}

// ResponsesSink writes the Responses stream: response.created and
// .in_progress, each item's added / delta / done events, then
// response.completed, .incomplete or .failed with the whole Response; every
// event numbered by sequence_number.
type ResponsesSink struct {
	B       *ResponseBuilder
	w       *bufio.Writer
	seq     int
	started bool
	finish  string
}

func (rs *ResponsesSink) emit(typ string, ev map[string]any) {
	ev["type"] = typ
	ev["sequence_number"] = rs.seq
	rs.seq++
	b, err := plainjson.Marshal(ev)
	if err != nil {
		return
	}
	api.WriteNamedEvent(rs.w, typ, b)
}

func (rs *ResponsesSink) start(w *bufio.Writer) {
	rs.w = w
	if rs.started {
		return
	}
	rs.started = true
	rs.B.emit = rs.emit
	rs.emit("response.created", map[string]any{"response": rs.B.Response(nil, "", nil)})
	rs.emit("response.in_progress", map[string]any{"response": rs.B.Response(nil, "", nil)})
}

func (rs *ResponsesSink) Event(w *bufio.Writer, ev *shlyuz.StreamEvent) {
	if ev.Data == nil {
		return
	}
	var ch anthropic.ChatChunk
	if json.Unmarshal(ev.Data, &ch) != nil || len(ch.Choices) == 0 {
		return
	}
	rs.start(w)
	c := &ch.Choices[0]
	if r := c.Delta.Reasoning; r != nil && *r != "" {
		rs.B.reasoning(*r)
	}
	rs.B.cite(c.Delta.Annotations)
	if t := c.Delta.Content; t != nil && *t != "" {
		rs.B.text(*t)
	}
	for _, tc := range c.Delta.ToolCalls {
		rs.B.toolCall(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
	}
	if c.FinishReason != "" {
		rs.finish = c.FinishReason
	}
}

func (rs *ResponsesSink) KeepAlive(w *bufio.Writer) { _, _ = w.WriteString(": keep-alive\n\n") }

func (rs *ResponsesSink) End(w *bufio.Writer, outcome error, receipt *actors.Receipt) {
	rs.start(w)
	rs.B.closeLast()
	if outcome != nil {
		rs.emit("response.failed", map[string]any{"response": rs.B.Response(nil, "", shlyuz.AsError(outcome))})
		return
	}
	finish := rs.finish
	if finish == "" {
		finish = receipt.FinishReason
	}
	r := rs.B.Response(receipt, finish, nil)
	typ := "response.completed"
	if r.Status == "incomplete" {
		typ = "response.incomplete"
	}
	rs.emit(typ, map[string]any{"response": r})
}
