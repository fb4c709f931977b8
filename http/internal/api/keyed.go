package api

import (
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// BalanceView is an account's balance: its package (while live), bought
// credits, what may be spent now (total_credits) and what requests in flight hold.
func BalanceView(b shlyuz.Balance, reserved shlyuz.Credits, now time.Time) fiber.Map {
	pkg := shlyuz.Credits(0)
	var expires any
	if b.PackageLive(now) {
		pkg, expires = b.PackageCredits, b.PackageExpiresAt
	}
	total := b.Available(now)
	return fiber.Map{
		"package_credits": pkg, "package_expires_at": expires, "bought_credits": b.BoughtCredits,
		"total_credits": total, "balance_credits": total, "reserved_credits": reserved, "rubles": shlyuz.FormatRubles(total),
	}
}
