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
		s.serveStream(c, st, call.GenerationID, &anthropicSink{id: call.GenerationID, model: s.askedName(call.Models[0], st.Model()), prompt: call.Prompt.Likely})
		return nil
	}
	resp, receipt, err := s.gw.Complete(c.UserContext(), call)
	if err != nil {
		return err
	}
	setDecidedMaxTokens(c, receipt.MaxTokens)
	defer bodyDone(c) // the reply below is written from the upstream's, not from spans of the body
	model := s.askedName(call.Models[0], receipt.Model)
	if resp.Native != nil {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(restamp(resp.Native, call.GenerationID, model))
	}
	r := *receipt
	r.Model = model
	return c.JSON(anthropicMessageOf(resp.Choices, call.GenerationID, &r))
}

// askedName is the model a reply names: the client's own name for served
// when it asked by one of served's aliases ("claude-sonnet-4-5-20250929"),
// as Anthropic echoes it. A client that reads its model's age from the name
// (Claude Code) would misread the catalog's id ("claude-sonnet-4.5" read as
// the retired Sonnet 4).
func (s *Server) askedName(asked, served string) string {
	if asked == served {
		return served
	}
	if m, ok := s.gw.Catalog().Get(asked); ok && m.ID == served {
		return asked
	}
	return served
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
