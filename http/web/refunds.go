package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/billing"
)

// AdminRoutes are the operator API's payment routes, mounted under the
// operator's token: POST /payments/:id/refunds returns money of a payment to
// the payer through the acquirer, with its refund receipt.
func (w *Web) AdminRoutes(r fiber.Router) {
	r.Post("/payments/:id/refunds", w.adminRefund)
}

type refundReq struct {
	Rubles         string `json:"rubles"`
	IdempotencyKey string `json:"idempotency_key"`
}

func (w *Web) adminRefund(c *fiber.Ctx) error {
	var req refundReq
	if err := c.BodyParser(&req); err != nil {
		return shlyuz.ErrInvalidJSON("A JSON body {\"rubles\": \"50.50\", \"idempotency_key\": \"…\"} is expected.")
	}
	if req.IdempotencyKey == "" {
		return shlyuz.ErrMissingField("idempotency_key")
	}
	k, ok := kopecks("ru", req.Rubles)
	if !ok || k <= 0 {
		return shlyuz.ErrInvalidValue("rubles", "rubles is a positive amount with at most two decimals.")
	}
	r, err := w.cfg.Billing.Refund(w.ctx(c), c.Params("id"), k, req.IdempotencyKey)
	switch {
	case errors.Is(err, billing.ErrOff):
		return shlyuz.ErrNotFound("Payments")
	case errors.Is(err, billing.ErrNotFound):
		return shlyuz.ErrNotFound("Payment " + c.Params("id"))
	case errors.Is(err, billing.ErrAmount):
		return shlyuz.ErrInvalidValue("rubles", "A refund is more than zero and at most what was paid.")
	case err != nil:
		return err
	}
	return c.JSON(r)
}
