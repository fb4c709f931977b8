package http

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// Cluster routes: the member list for the operator, and the
// probes every node answers, also in single mode.

// adminCluster lists the live members (id, address, lease expiry) and this
// node's account activations with their epochs.
func (s *Server) adminCluster(c *fiber.Ctx) error {
	st, err := s.gw.Cluster(c.UserContext())
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(st)
}

// healthz answers while the process runs.
func (s *Server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// readyz answers 200 when this node may serve: its cluster lease is live and
// the store answers; 503 otherwise.
func (s *Server) readyz(c *fiber.Ctx) error {
	checks := fiber.Map{"lease": "ok", "store": "ok"}
	ready := true
	if !s.gw.Live() {
		checks["lease"], ready = "lost", false
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	if _, err := s.gw.Store().Members(ctx, time.Now()); err != nil {
		checks["store"], ready = "unreachable", false
	}
	if !ready {
		return c.Status(503).JSON(fiber.Map{"status": "unavailable", "checks": checks})
	}
	return c.JSON(fiber.Map{"status": "ready", "checks": checks})
}
