package api

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
)

// MaxTokensHeader tells a client the completion ceiling the gateway sent
// upstream when it is not the client's own: what the key's ceiling, the
// balance and the model's output limit allow, whichever is least.
const MaxTokensHeader = "X-Shlyuz-Max-Tokens"

func SetDecidedMaxTokens(c *fiber.Ctx, n int64) {
	if n > 0 {
		c.Set(MaxTokensHeader, strconv.FormatInt(n, 10))
	}
}
