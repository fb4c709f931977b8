package http

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Cluster routes: the member list for the operator, and the
// probes every node answers, also in single mode.

// healthz answers while the process runs.
func (s *Server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// readyz answers 200 when this node may serve: its cluster lease is live and
// the store answers; 503 otherwise.
func (s *Server) readyz(c *fiber.Ctx) error {
	checks := fiber.Map{"lease": "ok", "store": "ok"}
	ready := true
	if !s.Gw.Live() {
		checks["lease"], ready = "lost", false
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	if _, err := s.Gw.Store().Members(ctx, time.Now()); err != nil {
		checks["store"], ready = "unreachable", false
	}
	if !ready {
		return c.Status(503).JSON(fiber.Map{"status": "unavailable", "checks": checks})
	}
	return c.JSON(fiber.Map{"status": "ready", "checks": checks})
}
