package http

import (
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// announceModel tells the client of a call to a deprecated model, before the
// reply starts: Deprecation (RFC 9745: when it was deprecated), Sunset (RFC
// 8594: when it retires) and a Link to its successor. Most models have no
// dates, so the common cost is one map lookup.
func (s *Server) announceModel(c *fiber.Ctx, id string) {
	if m, ok := s.gw.Catalog().Get(id); ok {
		announceDeprecation(c, m, s.gw.Catalog().Now)
	}
}

func announceDeprecation(c *fiber.Ctx, m *shlyuz.PricedModel, now func() time.Time) {
	if m.DeprecatedAt().IsZero() || !m.Deprecated(now()) {
		return
	}
	c.Set("Deprecation", m.DeprecationHeader())
	if v := m.SunsetHeader(); v != "" {
		c.Set("Sunset", v)
	}
	if m.Successor != "" {
		c.Set(fiber.HeaderLink, `</api/v1/models/`+escapeModelID(m.Successor)+`>; rel="successor-version"`)
	}
}
