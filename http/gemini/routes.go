package gemini

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// CreditsHeader carries a non-streamed reply's charge, exactly the debit:
// Google's usageMetadata has no member for it. A stream's charge is its
// generation's (X-Generation-Id, GET /api/v1/generation).
const CreditsHeader = "X-Generation-Credits"

// method is POST …/models/{model}:{method}: the model is everything up to
// the last colon (a catalog id holds a slash), the method after it.
func (s *server) method(c *fiber.Ctx) error {
	rest := c.Params("*")
	colon := strings.LastIndexByte(rest, ':')
	if colon <= 0 {
		return shlyuz.ErrNotFound("The route " + c.Method() + " " + c.Path())
	}
	model := modelName(rest[:colon])
	switch rest[colon+1:] {
	case "generateContent":
		return s.generate(c, model, false)
	case "streamGenerateContent":
		return s.generate(c, model, true)
	case "countTokens":
		return s.countTokens(c, model)
	}
	return shlyuz.ErrNotFound("The method " + rest[colon+1:])
}

// generate is generateContent and streamGenerateContent: reserved, served,
// settled and recorded as a chat completion is, under the generation id in
// X-Generation-Id.
func (s *server) generate(c *fiber.Ctx, model string, stream bool) error {
	call, perr := ParseGenerate(api.OwnedBody(c), model, stream)
	if perr != nil {
		return perr
	}
	call.KeyHash = c.Locals(api.LocalKeyHash).(string)
	call.GenerationID = api.NewID("gen-")
	c.Set("X-Generation-Id", call.GenerationID)
	s.AnnounceModel(c, call.Models[0])
	if stream {
		st, err := s.Gw.OpenStream(c.UserContext(), call)
		if err != nil {
			return err
		}
		sink := &Sink{ID: call.GenerationID, Model: s.AskedName(model, st.Model()), SSE: c.Query("alt") == "sse"}
		s.ServeStream(c, st, call.GenerationID, sink)
		if !sink.SSE { // ServeStream announced an event stream
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		}
		return nil
	}
	resp, receipt, err := s.Gw.Complete(c.UserContext(), call)
	if err != nil {
		return err
	}
	api.SetDecidedMaxTokens(c, receipt.MaxTokens)
	c.Set(CreditsHeader, strconv.FormatInt(int64(receipt.Credits), 10))
	defer api.BodyDone(c) // the reply below is written from the upstream's, not from spans of the body
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	if resp.Native != nil {
		return c.Send(resp.Native)
	}
	out, err := replyOf(resp.Choices, call.GenerationID, s.AskedName(model, receipt.Model), receipt)
	if err != nil {
		return err
	}
	return c.Send(out)
}

// countTokens is countTokens: the gateway's own count of the prompt (the one
// a reservation starts from), for any chat model. It calls no upstream and
// costs nothing. The body is {"contents":[…]} or
// {"generateContentRequest":{…}}.
func (s *server) countTokens(c *fiber.Ctx, model string) error {
	if _, err := s.Gw.CheckKey(c.Locals(api.LocalKeyHash).(string)); err != nil {
		return err
	}
	body := c.Body()
	var wrapped struct {
		Request json.RawMessage `json:"generateContentRequest"`
	}
	if json.Unmarshal(body, &wrapped) == nil && len(wrapped.Request) > 0 && !api.IsNull(wrapped.Request) {
		body = wrapped.Request
	}
	call, perr := ParseGenerate(body, model, false)
	if perr != nil {
		return perr
	}
	if _, err := s.Gw.Catalog().Lookup(model); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"totalTokens": call.Prompt.Likely})
}
