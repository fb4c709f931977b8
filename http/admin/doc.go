// Package admin serves the operator API (/api/admin): keys, accounts,
// plans, pricing, the catalog, the cluster's members, under the admin token.
package admin

import (
	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// server is the shared HTTP core (http/internal/api) that this package's
// handlers hang on.
type server struct{ *api.Server }

// Mount adds the operator API to r (a group already behind the admin token).
func Mount(r fiber.Router, a *api.Server) { (&server{a}).adminRoutes(r) }
