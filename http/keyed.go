package http

import (
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// keyInfo is GET /api/v1/key.
func (s *Server) keyInfo(c *fiber.Ctx) error {
	st := keyStatus(c)
	k := st.Key
	var remaining *shlyuz.Credits
	if k.Limit != nil {
		r := max(0, *k.Limit-st.Spent-st.Reserved)
		remaining = &r
	}
	var resetsAt *time.Time // when the limit's spend starts again; null when it never does
	if k.Limit != nil && k.LimitReset != shlyuz.ResetNever && !st.ResetsAt.IsZero() {
		resetsAt = &st.ResetsAt
	}
	return c.JSON(fiber.Map{"data": fiber.Map{
		"label": k.Label, "name": k.Name, "limit": k.Limit, "limit_reset": k.LimitReset, "limit_remaining": remaining,
		"limit_resets_at": resetsAt, "usage": st.Spent, "expires_at": k.ExpiresAt, "rate_limit": k.RateLimit,
	}})
}

// credits is GET /api/v1/credits.
func (s *Server) credits(c *fiber.Ctx) error {
	b, err := s.gw.Balance(keyStatus(c).Key.AccountID)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": balanceView(b.Balance, b.Reserved, time.Now())})
}

func balanceView(b shlyuz.Balance, reserved shlyuz.Credits, now time.Time) fiber.Map {
	pkg := shlyuz.Credits(0)
	var expires any
	if b.PackageLive(now) {
		pkg, expires = b.PackageCredits, b.PackageExpiresAt
	}
	total := b.Available(now)
	return fiber.Map{
		"package_credits": pkg, "package_expires_at": expires, "bought_credits": b.BoughtCredits,
		"total_credits": total, "reserved_credits": reserved, "rubles": shlyuz.FormatRubles(total),
	}
}

// generation is GET /api/v1/generation?id=.
func (s *Server) generation(c *fiber.Ctx) error {
	id := c.Query("id")
	if id == "" {
		return shlyuz.ErrMissingField("id")
	}
	g, err := s.gw.Generation(c.UserContext(), keyStatus(c).Key.AccountID, id)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": g})
}
