package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

const (
	LocalKeyHash = "shz.keyhash"
	localKey     = "shz.key"
)

// bearer extracts the key from Authorization and returns its hash.
func bearer(c *fiber.Ctx) (string, *shlyuz.Error) {
	h := c.Get(fiber.HeaderAuthorization)
	if h == "" {
		return "", shlyuz.ErrMissingKey()
	}
	if len(h) < 7 || !strings.EqualFold(h[:7], "Bearer ") {
		return "", shlyuz.ErrMissingKey()
	}
	key := strings.TrimSpace(h[7:])
	if !shlyuz.LooksLikeKey(key) {
		return "", shlyuz.ErrInvalidKey()
	}
	return shlyuz.HashKey(key), nil
}

// KeyHashOnly checks the key's shape and leaves the full check to the
// reservation at its account's actor (one actor round trip instead of two on
// the hot path).
func KeyHashOnly(c *fiber.Ctx) error {
	hash, err := bearer(c)
	if err != nil {
		return err
	}
	c.Locals(LocalKeyHash, hash)
	return c.Next()
}

// Authenticated checks the key with its account's actor and keeps its status.
func (s *Server) Authenticated(c *fiber.Ctx) error {
	hash, err := bearer(c)
	if err != nil {
		return err
	}
	st, err := s.Gw.CheckKey(hash)
	if err != nil {
		return err
	}
	c.Locals(LocalKeyHash, hash)
	c.Locals(localKey, st)
	return c.Next()
}

func KeyStatus(c *fiber.Ctx) *actors.KeyStatus { return c.Locals(localKey).(*actors.KeyStatus) }
