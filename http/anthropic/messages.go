package anthropic

import (
	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// messagesRoutes are Anthropic's Messages API: POST /api/v1/messages and
// /api/v1/messages/count_tokens, answered (errors too) in Anthropic's shapes.
func (s *server) messagesRoutes(v1 fiber.Router) {
	v1.Post("/messages", s.AnthropicErrors, api.AnthropicKey, s.messages)
	v1.Post("/messages/count_tokens", s.AnthropicErrors, api.AnthropicKey, s.countTokens)
}

// messages is POST /api/v1/messages: reserved, served, settled and recorded
// as a chat completion is, under the generation id in X-Generation-Id.
func (s *server) messages(c *fiber.Ctx) error {
	call, perr := ParseMessages(api.OwnedBody(c), c.Get, false)
	if perr != nil {
		return perr
	}
	call.KeyHash = c.Locals(api.LocalKeyHash).(string)
	call.GenerationID = api.NewID("gen-")
	c.Set("X-Generation-Id", call.GenerationID)
	s.AnnounceModel(c, call.Models[0])
	if call.Stream {
		st, err := s.Gw.OpenStream(c.UserContext(), call)
		if err != nil {
			return err
		}
		s.ServeStream(c, st, call.GenerationID, &AnthropicSink{Id: call.GenerationID, Model: s.AskedName(call.Models[0], st.Model()), Prompt: call.Prompt.Likely})
		return nil
	}
	resp, receipt, err := s.Gw.Complete(c.UserContext(), call)
	if err != nil {
		return err
	}
	api.SetDecidedMaxTokens(c, receipt.MaxTokens)
	defer api.BodyDone(c) // the reply below is written from the upstream's, not from spans of the body
	model := s.AskedName(call.Models[0], receipt.Model)
	if resp.Native != nil {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(restamp(resp.Native, call.GenerationID, model))
	}
	r := *receipt
	r.Model = model
	return c.JSON(AnthropicMessageOf(resp.Choices, call.GenerationID, &r))
}

// countTokens is POST /api/v1/messages/count_tokens: the gateway's own count
// of the prompt (the one a reservation starts from), for any chat model.
// It calls no upstream and costs nothing.
func (s *server) countTokens(c *fiber.Ctx) error {
	if _, err := s.Gw.CheckKey(c.Locals(api.LocalKeyHash).(string)); err != nil {
		return err
	}
	call, perr := ParseMessages(api.OwnedBody(c), c.Get, true)
	if perr != nil {
		return perr
	}
	if _, err := s.Gw.Catalog().Lookup(call.Models[0]); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"input_tokens": call.Prompt.Likely})
}
