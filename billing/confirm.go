package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/payments/yookassa"
)

// Payment is the account's payment: a pending one is confirmed with the
// acquirer first (the payer may come back before the notification does), and
// a succeeded one whose receipt is still unsent gets it registered.
func (s *Service) Payment(ctx context.Context, accountID, id string) (shlyuz.Payment, error) {
	p, err := s.store.Payment(ctx, id)
	if errors.Is(err, shlyuz.ErrNoRows) || (err == nil && p.AccountID != accountID) {
		return p, ErrNotFound
	}
	if err != nil {
		return p, shlyuz.ErrInternal(err)
	}
	if s.On() && p.ExternalID != "" && (p.Status == shlyuz.PaymentPending || p.Receipt == shlyuz.ReceiptUnsent || p.Receipt == shlyuz.ReceiptPending) {
		return s.confirm(ctx, p)
	}
	return p, nil
}

// Payments lists the account's latest payments, newest first.
func (s *Service) Payments(ctx context.Context, accountID string, limit int) ([]shlyuz.Payment, error) {
	return s.store.PaymentsOf(ctx, accountID, limit)
}

// Notified is what became of a notification.
type Notified struct {
	Ignored string // the event or state nothing was done for; "" when it was applied
}

// Notify takes the acquirer's notification. Its body is never believed: the
// payment or refund is fetched back from the API and applied from what the
// API says, once per payment or refund id. An error means "send it again".
func (s *Service) Notify(ctx context.Context, body []byte) (Notified, error) {
	if !s.On() {
		return Notified{}, shlyuz.ErrNotFound("Payments")
	}
	var n yookassa.Notification
	if err := json.Unmarshal(body, &n); err != nil || n.Event == "" || len(n.Object) == 0 {
		return Notified{}, shlyuz.ErrInvalidJSON("A YooKassa notification is expected.")
	}
	id, paymentID, err := n.ObjectID()
	if err != nil {
		return Notified{}, shlyuz.ErrInvalidJSON(err.Error())
	}
	switch {
	case n.Event == "refund.succeeded":
		return s.refunded(ctx, id)
	case paymentID != "" || (n.Event != "payment.succeeded" && n.Event != "payment.canceled"):
		return Notified{Ignored: n.Event}, nil // waiting_for_capture and the rest: nothing to do
	}
	p, perr := s.store.PaymentByExternalID(ctx, id)
	if errors.Is(perr, shlyuz.ErrNoRows) {
		return Notified{}, shlyuz.ErrNotFound("Payment " + id)
	}
	if perr != nil {
		return Notified{}, shlyuz.ErrInternal(perr)
	}
	if p, err = s.confirm(ctx, p); err != nil {
		return Notified{}, err
	}
	if p.Receipt == shlyuz.ReceiptUnsent {
		// The credit stands; the acquirer's retry of this notification retries the receipt.
		return Notified{}, acquirerError("receipt", errors.New("the receipt is not registered yet"))
	}
	return Notified{}, nil
}

// confirm fetches the payment from the acquirer and applies its state:
// succeeded credits the account (exactly once per payment) and registers the
// receipt when it goes after the payment; canceled closes it.
func (s *Service) confirm(ctx context.Context, p shlyuz.Payment) (shlyuz.Payment, error) {
	yp, err := s.yk.GetPayment(ctx, p.ExternalID)
	if err != nil {
		return p, acquirerError("payment", err)
	}
	k, kerr := yp.Amount.Kopecks()
	want, _ := decimalKopecks(p.AmountRub)
	if yp.ID != p.ExternalID || kerr != nil || k != want || yp.Metadata["payment_id"] != p.ID {
		s.log.Error("billing: YooKassa's payment disagrees with ours", "payment", p.ID, "external", p.ExternalID)
		return p, shlyuz.ErrConflict("payment_mismatch", "The payment %s does not match what was ordered.", p.ExternalID)
	}
	status, receipt, done := p.Status, p.Receipt, p.CompletedAt != nil
	switch yp.Status {
	case yookassa.StatusSucceeded:
		if err := s.credit(ctx, p); err != nil {
			return p, err
		}
		p.Status = shlyuz.PaymentSucceeded
	case yookassa.StatusCanceled:
		p.Status = shlyuz.PaymentCanceled
	default:
		return p, nil
	}
	switch {
	case p.Receipt == shlyuz.ReceiptUnsent && p.Status == shlyuz.PaymentSucceeded:
		p.Receipt = s.registerReceipt(ctx, p, k)
	case p.Receipt == shlyuz.ReceiptUnsent:
		p.Receipt = shlyuz.ReceiptNone // nothing was paid, nothing to fiscalise
	case p.Receipt != shlyuz.ReceiptNone && yp.ReceiptRegistration != "":
		p.Receipt = yp.ReceiptRegistration
	}
	if p.CompletedAt == nil {
		now := s.now()
		p.CompletedAt = &now
	}
	if p.Status == status && p.Receipt == receipt && done {
		return p, nil
	}
	if err := s.store.UpdatePayment(ctx, p); err != nil {
		return p, shlyuz.ErrInternal(err)
	}
	return p, nil
}

// credit gives the account what the payment bought, through the account actor's
// ledger; the entry's id comes from the payment, so a replay changes nothing.
func (s *Service) credit(ctx context.Context, p shlyuz.Payment) error {
	if p.Kind != shlyuz.PaymentPlan {
		if _, _, err := s.gw.TopUp(p.AccountID, p.Credits, p.ID); err != nil {
			return err
		}
		return nil
	}
	plan, err := s.plan(ctx, p.PlanID)
	if err != nil {
		return shlyuz.ErrInternal(fmt.Errorf("payment %s: plan %s is gone", p.ID, p.PlanID))
	}
	plan.PackageCredits = p.Credits // what was paid for, even if the plan changed since
	if _, _, gerr := s.gw.GrantPlan(p.AccountID, plan, p.ID); gerr != nil {
		return gerr
	}
	return nil
}

// registerReceipt registers a succeeded payment's receipt through
// /v3/receipts (once: the payment's id is the key) and returns its status;
// unsent when it could not be, so the next confirmation tries again.
func (s *Service) registerReceipt(ctx context.Context, p shlyuz.Payment, kopecks int64) string {
	acct, err := s.store.Account(ctx, p.AccountID)
	if err != nil {
		s.log.Error("billing: receipt after payment: account", "payment", p.ID, "err", err)
		return shlyuz.ReceiptUnsent
	}
	rc := s.cfg.Receipts.receipt(acct.Email, s.line(ctx, p), kopecks)
	got, err := s.yk.CreateReceipt(ctx, "receipt-"+p.ID, yookassa.NewReceipt{
		Type: yookassa.ReceiptPayment, PaymentID: p.ExternalID, Customer: rc.Customer, Items: rc.Items, Send: true,
		TaxSystemCode: rc.TaxSystemCode, Settlements: []yookassa.Settlement{{Type: "cashless", Amount: yookassa.Rubles(kopecks)}},
	})
	if err != nil {
		s.log.Error("billing: receipt after payment", "payment", p.ID, "err", err)
		return shlyuz.ReceiptUnsent
	}
	return got.Status
}

// line names what the payment bought, as its receipt says it: the plan under
// its current name (its id when it is gone), or a top-up.
func (s *Service) line(ctx context.Context, p shlyuz.Payment) string {
	if p.Kind != shlyuz.PaymentPlan {
		return s.cfg.Receipts.TopUpItem
	}
	name := p.PlanID
	if plan, err := s.plan(ctx, p.PlanID); err == nil && plan.Name != "" {
		name = plan.Name
	}
	return s.cfg.Receipts.line(shlyuz.PaymentPlan, name)
}
