package admin

import (
	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// adminCluster lists the live members (id, address, lease expiry) and this
// node's account activations with their epochs.
func (s *server) adminCluster(c *fiber.Ctx) error {
	st, err := s.Gw.Cluster(c.UserContext())
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(st)
}
