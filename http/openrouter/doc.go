// Package openrouter serves the account surface in OpenRouter's shapes: the
// model list and catalog, keys, credits, the generation record and activity,
// and the public models, pricing and plans.
package openrouter

import (
	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// server is the shared HTTP core (http/internal/api) that this package's
// handlers hang on.
type server struct{ *api.Server }

// MountPublic adds GET /models, /pricing and /plans to pub (/api).
func MountPublic(pub fiber.Router, a *api.Server) {
	s := &server{a}
	pub.Get("/models", s.publicModels)
	pub.Get("/pricing", s.PublicPricing)
	pub.Get("/plans", s.publicPlans)
}

// Mount adds the catalog, key, credits and generation routes to v1.
func Mount(v1 fiber.Router, a *api.Server) {
	s := &server{a}
	s.catalogRoutes(v1)
	s.keyRoutes(v1)
	v1.Get("/key", s.Authenticated, s.keyInfo)
	v1.Get("/credits", s.Authenticated, s.credits)
	v1.Get("/generation", s.Authenticated, s.generation)
}
