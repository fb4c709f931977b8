package http

import (
	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// adminWebRoutes let the operator see what the web area's users do: the
// accounts, and an account's activity (its keys are in GET /accounts/:id).
func (s *Server) adminWebRoutes(r fiber.Router) {
	r.Get("/accounts", s.adminAccounts)
	r.Get("/accounts/:id/activity", s.adminActivity)
}

// page reads ?limit (1–500, default 50) and ?offset.
func page(c *fiber.Ctx) (int, int, *shlyuz.Error) {
	limit, offset := c.QueryInt("limit", 50), c.QueryInt("offset", 0)
	if limit < 1 || limit > 500 {
		return 0, 0, shlyuz.ErrInvalidValue("limit", "limit is 1 to 500.")
	}
	if offset < 0 {
		return 0, 0, shlyuz.ErrInvalidValue("offset", "offset is 0 or more.")
	}
	return limit, offset, nil
}

func (s *Server) adminAccounts(c *fiber.Ctx) error {
	limit, offset, perr := page(c)
	if perr != nil {
		return perr
	}
	accts, err := s.gw.Store().Accounts(c.UserContext(), limit, offset)
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	if accts == nil {
		accts = []shlyuz.Account{}
	}
	return c.JSON(fiber.Map{"data": accts})
}

func (s *Server) adminActivity(c *fiber.Ctx) error {
	limit, offset, perr := page(c)
	if perr != nil {
		return perr
	}
	a, aerr := s.account(c)
	if aerr != nil {
		return aerr
	}
	gens, err := s.gw.Store().Generations(c.UserContext(), shlyuz.GenerationFilter{AccountID: a.ID, KeyID: c.Query("key"),
		Model: c.Query("model"), Limit: limit, Offset: offset})
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	type row struct {
		shlyuz.Generation
		KeyID string `json:"key_id"`
	}
	out := make([]row, 0, len(gens))
	for _, g := range gens {
		out = append(out, row{Generation: g, KeyID: g.KeyID})
	}
	return c.JSON(fiber.Map{"data": out})
}
