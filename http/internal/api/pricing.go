package api

import (
	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// PublicPricing is GET /api/pricing.
func (s *Server) PublicPricing(c *fiber.Ctx) error {
	st, _, err := s.Gw.Store().Settings(c.UserContext())
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	p := s.Gw.Catalog().Pricing
	out := fiber.Map{"rate": p.Rate, "K": p.K, "credits_per_ruble": shlyuz.CreditsPerRuble, "currency": "RUB"}
	if e := s.Gw.WebSearchEngine(); e != "" { // the web plugin's fee, credits per search
		out["web_search"] = fiber.Map{"engine": e, "credits_per_search": shlyuz.NewDecimalFrac(s.Gw.WebSearchFee(), shlyuz.MicroPerCredit)}
	}
	if !st.UpdatedAt.IsZero() { // set once the operator changed the pricing; the config's is undated
		out["updated_at"] = st.UpdatedAt
	}
	return c.JSON(out)
}
