package api

import (
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// AnnounceModel tells the client of a call to a deprecated model, before the
// reply starts: Deprecation (RFC 9745: when it was deprecated), Sunset (RFC
// 8594: when it retires) and a Link to its successor. Most models have no
// dates, so the common cost is one map lookup.
func (s *Server) AnnounceModel(c *fiber.Ctx, id string) {
	if m, ok := s.Gw.Catalog().Get(id); ok {
		AnnounceDeprecation(c, m, s.Gw.Catalog().Now)
	}
}

func AnnounceDeprecation(c *fiber.Ctx, m *shlyuz.PricedModel, now func() time.Time) {
	if m.DeprecatedAt().IsZero() || !m.Deprecated(now()) {
		return
	}
	c.Set("Deprecation", m.DeprecationHeader())
	if v := m.SunsetHeader(); v != "" {
		c.Set("Sunset", v)
	}
	if m.Successor != "" {
		c.Set(fiber.HeaderLink, `</api/v1/models/`+EscapeModelID(m.Successor)+`>; rel="successor-version"`)
	}
}

// EscapeModelID escapes each part of "author/slug" for a path.
func EscapeModelID(id string) string {
	parts := strings.Split(id, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
