package web

import (
	"errors"
	"fmt"

	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/billing"
)

// Payment pages: the checkout, the payer's return and the acquirer's
// notification all go through billing; these handlers only read the form
// and render what billing says.

func (w *Web) paymentsOn() bool { return w.cfg.Billing.On() }

func (w *Web) topUpPage(c *fiber.Ctx) error {
	return w.renderTopUp(c, fiber.StatusOK, fiber.Map{}, "")
}

func (w *Web) renderTopUp(c *fiber.Ctx, status int, form fiber.Map, errMsg string) error {
	form["On"] = w.paymentsOn()
	minKop := int64(1000)
	if w.paymentsOn() {
		minKop, _ = w.cfg.Billing.TopUpLimits()
	}
	form["Hint"] = fmt.Sprintf(w.t(c, "amount_hint"), formatKopecks(langOf(c), minKop))
	return w.render(c, status, "topup", "topup_title", form, "", errMsg)
}

// topUp starts a payment for bought credits and sends the payer to the acquirer.
func (w *Web) topUp(c *fiber.Ctx) error {
	if !w.paymentsOn() {
		return w.renderTopUp(c, fiber.StatusServiceUnavailable, fiber.Map{}, w.t(c, "payments_off"))
	}
	form := fiber.Map{"Amount": c.FormValue("amount")}
	k, ok := kopecks(langOf(c), c.FormValue("amount"))
	if !ok {
		k = -1
	}
	url, err := w.cfg.Billing.TopUp(w.ctx(c), sessionOf(c).account, k)
	if errors.Is(err, billing.ErrAmount) {
		minKop, maxKop := w.cfg.Billing.TopUpLimits()
		return w.renderTopUp(c, fiber.StatusBadRequest, form, fmt.Sprintf(w.t(c, "bad_amount"), formatKopecks(langOf(c), minKop), formatKopecks(langOf(c), maxKop)))
	}
	return w.checkedOut(c, url, err)
}

func (w *Web) plansPage(c *fiber.Ctx) error {
	plans, err := w.store.Plans(w.ctx(c))
	if err != nil {
		return w.fail(c, err)
	}
	return w.render(c, fiber.StatusOK, "plans", "plans", fiber.Map{"Plans": plans, "On": w.paymentsOn()}, "", "")
}

// buyPlan starts a payment for a plan at its current price.
func (w *Web) buyPlan(c *fiber.Ctx) error {
	if !w.paymentsOn() {
		return w.render(c, fiber.StatusServiceUnavailable, "notice", "plans", nil, "", w.t(c, "payments_off"))
	}
	url, err := w.cfg.Billing.BuyPlan(w.ctx(c), sessionOf(c).account, c.Params("id"))
	if errors.Is(err, billing.ErrNotFound) {
		return w.render(c, fiber.StatusNotFound, "notice", "plans", nil, "", w.t(c, "not_found"))
	}
	return w.checkedOut(c, url, err)
}

// checkedOut sends the payer to the acquirer's page, or says the payment failed.
func (w *Web) checkedOut(c *fiber.Ctx, url string, err error) error {
	switch {
	case errors.Is(err, billing.ErrAcquirer):
		return w.render(c, fiber.StatusBadGateway, "notice", "topup_title", nil, "", w.t(c, "payment_failed"))
	case err != nil:
		return w.fail(c, err)
	}
	return c.Redirect(url, fiber.StatusSeeOther)
}

// paymentPage is where the acquirer returns the payer: billing confirms a
// pending payment with the acquirer (the notification may not have come) and
// the page shows its state and its receipt's.
func (w *Web) paymentPage(c *fiber.Ctx) error {
	p, err := w.cfg.Billing.Payment(w.ctx(c), sessionOf(c).account.ID, c.Params("id"))
	if errors.Is(err, billing.ErrNotFound) {
		return w.render(c, fiber.StatusNotFound, "notice", "payment", nil, "", w.t(c, "not_found"))
	}
	if err != nil {
		return w.fail(c, err)
	}
	return w.render(c, fiber.StatusOK, "payment", "payment", p, "", "")
}

// notify takes the acquirer's notification; billing believes only the acquirer's API.
func (w *Web) notify(c *fiber.Ctx) error {
	n, err := w.cfg.Billing.Notify(w.ctx(c), c.Body())
	if err != nil {
		return err
	}
	if n.Ignored != "" {
		return c.JSON(fiber.Map{"ok": true, "ignored": n.Ignored})
	}
	return c.JSON(fiber.Map{"ok": true})
}
