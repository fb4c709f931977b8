package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
	shlyuz "github.com/shlyuz/shlyuz"
)

// cors lets browsers of the configured origins call the public and keyed
// API directly (preflights answered), never the operator API.
func (s *Server) cors() fiber.Handler {
	origins := s.opts.CORSOrigins
	if len(origins) == 0 {
		origins = []string{"*"}
	}
	return cors.New(cors.Config{
		Next:          func(c *fiber.Ctx) bool { return strings.HasPrefix(c.Path(), "/api/admin") },
		AllowOrigins:  strings.Join(origins, ","),
		AllowMethods:  "GET,POST,DELETE,OPTIONS",
		ExposeHeaders: "X-Generation-Id,X-Request-Id,X-Shlyuz-Max-Tokens,Retry-After,Deprecation,Sunset,Link",
		MaxAge:        600,
	})
}

// operatorAPIOff answers every operator route when no admin token is set.
func operatorAPIOff(*fiber.Ctx) error {
	return shlyuz.ErrNotFoundCode("operator_api_off",
		"The operator API is off: start the gateway with SHLYUZ_ADMIN_TOKEN set to turn it on.")
}
