package http

import (
	"github.com/gofiber/fiber/v2"
)

// messagesRoutes are Anthropic's Messages API: POST /api/v1/messages and
// /api/v1/messages/count_tokens, answered (errors too) in Anthropic's shapes.
func (s *Server) messagesRoutes(v1 fiber.Router) {
	v1.Post("/messages", s.anthropicErrors, anthropicKey, s.messages)
	v1.Post("/messages/count_tokens", s.anthropicErrors, anthropicKey, s.countTokens)
}

// messages is POST /api/v1/messages: reserved, served, settled and recorded
// as a chat completion is, under the generation id in X-Generation-Id.
func (s *Server) messages(c *fiber.Ctx) error {
	call, perr := parseMessages(ownedBody(c), c.Get, false)
	if perr != nil {
		return perr
	}
	call.KeyHash = c.Locals(localKeyHash).(string)
	call.GenerationID = newID("gen-")
	c.Set("X-Generation-Id", call.GenerationID)
	s.announceModel(c, call.Models[0])
	if call.Stream {
		st, err := s.gw.OpenStream(c.UserContext(), call)
		if err != nil {
			return err
		}
		s.serveStream(c, st, call.GenerationID, &anthropicSink{id: call.GenerationID, model: st.Model(), prompt: call.Prompt.Likely})
		return nil
	}
	resp, receipt, err := s.gw.Complete(c.UserContext(), call)
	if err != nil {
		return err
	}
	setDecidedMaxTokens(c, receipt.MaxTokens)
	defer bodyDone(c) // the reply below is written from the upstream's, not from spans of the body
	if resp.Native != nil {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(restamp(resp.Native, call.GenerationID, receipt.Model))
	}
	return c.JSON(anthropicMessageOf(resp.Choices, call.GenerationID, receipt))
}

// countTokens is POST /api/v1/messages/count_tokens: the gateway's own count
// of the prompt (the one a reservation starts from), for any chat model.
// It calls no upstream and costs nothing.
func (s *Server) countTokens(c *fiber.Ctx) error {
	if _, err := s.gw.CheckKey(c.Locals(localKeyHash).(string)); err != nil {
		return err
	}
	call, perr := parseMessages(ownedBody(c), c.Get, true)
	if perr != nil {
		return perr
	}
	if _, err := s.gw.Catalog().Lookup(call.Models[0]); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"input_tokens": call.Prompt.Likely})
}
