package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/payments/yookassa"
)

// maxTopUpKopecks bounds one top-up (1,000,000 ₽).
const maxTopUpKopecks = 100_000_000

func (w *Web) topUpPage(c *fiber.Ctx) error {
	return w.renderTopUp(c, fiber.StatusOK, fiber.Map{}, "")
}

func (w *Web) renderTopUp(c *fiber.Ctx, status int, form fiber.Map, errMsg string) error {
	form["On"] = w.cfg.YooKassa != nil
	form["Hint"] = fmt.Sprintf(w.t(c, "amount_hint"), formatKopecks(langOf(c), w.cfg.MinTopUpKopecks))
	return w.render(c, status, "topup", "topup_title", form, "", errMsg)
}

// topUp starts a payment for bought credits and sends the payer to YooKassa.
func (w *Web) topUp(c *fiber.Ctx) error {
	if w.cfg.YooKassa == nil {
		return w.renderTopUp(c, fiber.StatusServiceUnavailable, fiber.Map{}, w.t(c, "payments_off"))
	}
	form := fiber.Map{"Amount": c.FormValue("amount")}
	k, ok := kopecks(langOf(c), c.FormValue("amount"))
	if !ok || k < w.cfg.MinTopUpKopecks || k > maxTopUpKopecks {
		return w.renderTopUp(c, fiber.StatusBadRequest, form, fmt.Sprintf(w.t(c, "bad_amount"), formatKopecks(langOf(c), w.cfg.MinTopUpKopecks), formatKopecks(langOf(c), maxTopUpKopecks)))
	}
	credits := k * (shlyuz.CreditsPerRuble / 100)
	desc := fmt.Sprintf("Shlyuz: %s credits", fmt.Sprint(credits))
	return w.startPayment(c, shlyuz.PaymentTopUp, "", k, credits, desc)
}

func (w *Web) plansPage(c *fiber.Ctx) error {
	plans, err := w.store.Plans(w.ctx(c))
	if err != nil {
		return w.fail(c, err)
	}
	return w.render(c, fiber.StatusOK, "plans", "plans", fiber.Map{"Plans": plans, "On": w.cfg.YooKassa != nil}, "", "")
}

// buyPlan starts a payment for a plan at its current price.
func (w *Web) buyPlan(c *fiber.Ctx) error {
	if w.cfg.YooKassa == nil {
		return w.render(c, fiber.StatusServiceUnavailable, "notice", "plans", nil, "", w.t(c, "payments_off"))
	}
	plans, err := w.store.Plans(w.ctx(c))
	if err != nil {
		return w.fail(c, err)
	}
	for _, p := range plans {
		if p.ID != c.Params("id") {
			continue
		}
		k, ok := kopecks("ru", p.PriceRubles.String())
		if !ok || k <= 0 {
			return w.render(c, fiber.StatusBadRequest, "notice", "plans", nil, "", w.t(c, "payment_failed"))
		}
		return w.startPayment(c, shlyuz.PaymentPlan, p.ID, k, p.PackageCredits, "Shlyuz: "+p.Name)
	}
	return w.render(c, fiber.StatusNotFound, "notice", "plans", nil, "", w.t(c, "not_found"))
}

// startPayment records the payment, creates it at YooKassa (our id is the
// Idempotence-Key) with a 54-FZ receipt, and redirects to the confirmation page.
func (w *Web) startPayment(c *fiber.Ctx, kind shlyuz.PaymentKind, planID string, kop int64, credits shlyuz.Credits, desc string) error {
	s := sessionOf(c)
	p := shlyuz.Payment{ID: newID("pay-"), AccountID: s.account.ID, Kind: kind, PlanID: planID,
		AmountRub: shlyuz.NewDecimalFrac(kop, 100), Credits: credits, Status: shlyuz.PaymentPending, CreatedAt: w.now().UTC()}
	if err := w.store.CreatePayment(w.ctx(c), p); err != nil {
		return w.fail(c, err)
	}
	yp, err := w.cfg.YooKassa.CreatePayment(w.ctx(c), p.ID, yookassa.NewPayment{
		Amount:       yookassa.Rubles(kop),
		Capture:      true,
		Confirmation: yookassa.Confirmation{Type: "redirect", ReturnURL: w.cfg.PublicURL + "/account/payments/" + p.ID},
		Description:  desc,
		Metadata:     map[string]string{"payment_id": p.ID, "account_id": p.AccountID},
		Receipt:      yookassa.ServiceReceipt(s.account.Email, desc, kop),
	})
	if err != nil || yp.Confirmation == nil || yp.Confirmation.ConfirmationURL == "" {
		w.log.Error("web: create payment", "payment", p.ID, "err", err)
		p.Status = shlyuz.PaymentCanceled
		if uerr := w.store.UpdatePayment(w.ctx(c), p); uerr != nil {
			w.log.Error("web: mark payment failed", "payment", p.ID, "err", uerr)
		}
		return w.render(c, fiber.StatusBadGateway, "notice", "topup_title", nil, "", w.t(c, "payment_failed"))
	}
	p.ExternalID = yp.ID
	if err := w.store.UpdatePayment(w.ctx(c), p); err != nil {
		return w.fail(c, err)
	}
	return c.Redirect(yp.Confirmation.ConfirmationURL, fiber.StatusSeeOther)
}

// paymentPage is where YooKassa returns the payer: it asks YooKassa for the
// payment's state (in case the notification has not come) and shows it.
func (w *Web) paymentPage(c *fiber.Ctx) error {
	s := sessionOf(c)
	p, err := w.store.Payment(w.ctx(c), c.Params("id"))
	if errors.Is(err, shlyuz.ErrNoRows) || (err == nil && p.AccountID != s.account.ID) {
		return w.render(c, fiber.StatusNotFound, "notice", "payment", nil, "", w.t(c, "not_found"))
	}
	if err != nil {
		return w.fail(c, err)
	}
	if p.Status == shlyuz.PaymentPending && p.ExternalID != "" && w.cfg.YooKassa != nil {
		if p, err = w.reconcilePayment(c, p); err != nil {
			return w.fail(c, err)
		}
	}
	return w.render(c, fiber.StatusOK, "payment", "payment", p, "", "")
}

// notify takes YooKassa's notification. Its body is never believed: the
// payment is fetched back from the API and credited from what the API says,
// once per payment (the ledger entry's id is the payment's), and only then acknowledged.
func (w *Web) notify(c *fiber.Ctx) error {
	if w.cfg.YooKassa == nil {
		return shlyuz.ErrNotFound("Payments")
	}
	var n yookassa.Notification
	if err := json.Unmarshal(c.Body(), &n); err != nil || n.Event == "" || len(n.Object) == 0 {
		return shlyuz.ErrInvalidJSON("A YooKassa notification is expected.")
	}
	id, paymentID, err := n.ObjectID()
	if err != nil {
		return shlyuz.ErrInvalidJSON(err.Error())
	}
	switch {
	case n.Event == "refund.succeeded":
		return w.refund(c, id)
	case paymentID != "" || (n.Event != "payment.succeeded" && n.Event != "payment.canceled"):
		return c.JSON(fiber.Map{"ok": true, "ignored": n.Event}) // waiting_for_capture and the rest: nothing to do
	}
	p, perr := w.store.PaymentByExternalID(w.ctx(c), id)
	if errors.Is(perr, shlyuz.ErrNoRows) {
		return shlyuz.ErrNotFound("Payment " + id)
	}
	if perr != nil {
		return shlyuz.ErrInternal(perr)
	}
	if _, err := w.reconcilePayment(c, p); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"ok": true})
}

// reconcilePayment fetches the payment from YooKassa and applies its state:
// succeeded credits the account (exactly once per payment), canceled closes it.
func (w *Web) reconcilePayment(c *fiber.Ctx, p shlyuz.Payment) (shlyuz.Payment, error) {
	yp, err := w.cfg.YooKassa.GetPayment(w.ctx(c), p.ExternalID)
	if err != nil {
		return p, &shlyuz.Error{Status: fiber.StatusBadGateway, Type: shlyuz.TypeUpstream, Code: "upstream_error",
			Message: "YooKassa did not confirm the payment; it will be checked again.", Cause: err}
	}
	k, kerr := yp.Amount.Kopecks()
	want, _ := kopecks("ru", p.AmountRub.String())
	if yp.ID != p.ExternalID || kerr != nil || k != want || yp.Metadata["payment_id"] != p.ID {
		w.log.Error("web: YooKassa's payment disagrees with ours", "payment", p.ID, "external", p.ExternalID)
		return p, shlyuz.ErrConflict("payment_mismatch", "The payment %s does not match what was ordered.", p.ExternalID)
	}
	switch yp.Status {
	case yookassa.StatusSucceeded:
		if err := w.credit(w.ctx(c), p); err != nil {
			return p, err
		}
		p.Status = shlyuz.PaymentSucceeded
	case yookassa.StatusCanceled:
		p.Status = shlyuz.PaymentCanceled
	default:
		return p, nil
	}
	if p.CompletedAt == nil {
		now := w.now().UTC()
		p.CompletedAt = &now
	}
	if err := w.store.UpdatePayment(w.ctx(c), p); err != nil {
		return p, shlyuz.ErrInternal(err)
	}
	return p, nil
}

// credit gives the account what the payment bought, through the account actor's
// ledger; the entry's id comes from the payment, so a replay changes nothing.
func (w *Web) credit(ctx context.Context, p shlyuz.Payment) error {
	if p.Kind == shlyuz.PaymentPlan {
		plans, err := w.store.Plans(ctx)
		if err != nil {
			return shlyuz.ErrInternal(err)
		}
		for _, plan := range plans {
			if plan.ID == p.PlanID {
				plan.PackageCredits = p.Credits // what was paid for, even if the plan changed since
				_, _, gerr := w.gw.GrantPlan(p.AccountID, plan, p.ID)
				if gerr != nil {
					return gerr
				}
				return nil
			}
		}
		return shlyuz.ErrInternal(fmt.Errorf("payment %s: plan %s is gone", p.ID, p.PlanID))
	}
	if _, _, err := w.gw.TopUp(p.AccountID, p.Credits, p.ID); err != nil {
		return err
	}
	return nil
}

// refund debits what a refund returned, once per refund id, after fetching the
// refund (and so its payment and amount) back from YooKassa. A top-up's refund
// takes bought credits at the top-up's rate; a plan's takes its share of the package.
func (w *Web) refund(c *fiber.Ctx, refundID string) error {
	r, err := w.cfg.YooKassa.GetRefund(w.ctx(c), refundID)
	var apiErr *yookassa.APIError
	if errors.As(err, &apiErr) && apiErr.Status == fiber.StatusNotFound {
		return shlyuz.ErrNotFound("Refund " + refundID)
	}
	if err != nil {
		return &shlyuz.Error{Status: fiber.StatusBadGateway, Type: shlyuz.TypeUpstream, Code: "upstream_error",
			Message: "YooKassa did not confirm the refund; it will be checked again.", Cause: err}
	}
	if r.Status != yookassa.StatusSucceeded {
		return c.JSON(fiber.Map{"ok": true, "ignored": "refund " + r.Status})
	}
	p, perr := w.store.PaymentByExternalID(w.ctx(c), r.PaymentID)
	if errors.Is(perr, shlyuz.ErrNoRows) {
		return shlyuz.ErrNotFound("Payment " + r.PaymentID)
	}
	if perr != nil {
		return shlyuz.ErrInternal(perr)
	}
	refunded, kerr := r.Amount.Kopecks()
	paid, _ := kopecks("ru", p.AmountRub.String())
	if p.Status != shlyuz.PaymentSucceeded || kerr != nil || refunded <= 0 || refunded > paid {
		return shlyuz.ErrConflict("refund_mismatch", "The refund %s does not match a credited payment.", refundID)
	}
	share := new(big.Int).Div(new(big.Int).Mul(big.NewInt(p.Credits), big.NewInt(refunded)), big.NewInt(paid)).Int64() // rounded down
	var pkg, bought shlyuz.Credits
	if p.Kind == shlyuz.PaymentPlan {
		pkg = -share
	} else {
		bought = -share
	}
	if _, _, rerr := w.gw.Refund(p.AccountID, pkg, bought, refundID); rerr != nil {
		return rerr
	}
	return c.JSON(fiber.Map{"ok": true})
}
