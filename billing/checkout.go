package billing

import (
	"context"
	"fmt"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/payments/yookassa"
)

// TopUp starts a payment of kopecks for bought credits (1 kopeck = 1,000
// credits) and returns the acquirer's page the payer confirms it on.
func (s *Service) TopUp(ctx context.Context, acct shlyuz.Account, kopecks int64) (string, error) {
	if !s.On() {
		return "", ErrOff
	}
	if kopecks < s.cfg.MinTopUpKopecks || kopecks > MaxTopUpKopecks {
		return "", ErrAmount
	}
	credits := kopecks * (shlyuz.CreditsPerRuble / 100)
	return s.start(ctx, acct, shlyuz.PaymentTopUp, "", kopecks, credits, fmt.Sprintf("Shlyuz: %d credits", credits), s.cfg.Receipts.TopUpItem)
}

// BuyPlan starts a payment for the plan's package at its current price.
func (s *Service) BuyPlan(ctx context.Context, acct shlyuz.Account, planID string) (string, error) {
	if !s.On() {
		return "", ErrOff
	}
	plan, err := s.plan(ctx, planID)
	if err != nil {
		return "", err
	}
	k, ok := decimalKopecks(plan.PriceRubles)
	if !ok || k <= 0 {
		return "", fmt.Errorf("%w: plan %s costs %s ₽, not whole kopecks", ErrAcquirer, plan.ID, plan.PriceRubles)
	}
	return s.start(ctx, acct, shlyuz.PaymentPlan, plan.ID, k, plan.PackageCredits, "Shlyuz: "+plan.Name, s.cfg.Receipts.line(shlyuz.PaymentPlan, plan.Name))
}

func (s *Service) plan(ctx context.Context, id string) (shlyuz.Plan, error) {
	plans, err := s.store.Plans(ctx)
	if err != nil {
		return shlyuz.Plan{}, shlyuz.ErrInternal(err)
	}
	for _, p := range plans {
		if p.ID == id {
			return p, nil
		}
	}
	return shlyuz.Plan{}, ErrNotFound
}

// start records the payment, creates it at YooKassa (our id is the
// Idempotence-Key) with its receipt when receipts go with the payment, and
// returns the confirmation URL. A payment the acquirer refused is closed as canceled.
func (s *Service) start(ctx context.Context, acct shlyuz.Account, kind shlyuz.PaymentKind, planID string, kop int64, credits shlyuz.Credits, desc, line string) (string, error) {
	p := shlyuz.Payment{ID: newID("pay-"), AccountID: acct.ID, Kind: kind, PlanID: planID,
		AmountRub: shlyuz.NewDecimalFrac(kop, 100), Credits: credits, Status: shlyuz.PaymentPending, CreatedAt: s.now(),
		Receipt: s.cfg.Receipts.initial()}
	if err := s.store.CreatePayment(ctx, p); err != nil {
		return "", shlyuz.ErrInternal(err)
	}
	np := yookassa.NewPayment{
		Amount:       yookassa.Rubles(kop),
		Capture:      true,
		Confirmation: yookassa.Confirmation{Type: "redirect", ReturnURL: s.cfg.PublicURL + "/account/payments/" + p.ID},
		Description:  desc,
		Metadata:     map[string]string{"payment_id": p.ID, "account_id": p.AccountID},
	}
	if s.cfg.Receipts.Mode == ReceiptWithPayment {
		np.Receipt = s.cfg.Receipts.receipt(acct.Email, line, kop)
	}
	yp, err := s.yk.CreatePayment(ctx, p.ID, np)
	if err != nil || yp.Confirmation == nil || yp.Confirmation.ConfirmationURL == "" {
		s.log.Error("billing: create payment", "payment", p.ID, "err", err)
		p.Status, p.Receipt = shlyuz.PaymentCanceled, shlyuz.ReceiptNone
		if uerr := s.store.UpdatePayment(ctx, p); uerr != nil {
			s.log.Error("billing: mark payment failed", "payment", p.ID, "err", uerr)
		}
		return "", fmt.Errorf("%w: %v", ErrAcquirer, err)
	}
	p.ExternalID = yp.ID
	if err := s.store.UpdatePayment(ctx, p); err != nil {
		return "", shlyuz.ErrInternal(err)
	}
	return yp.Confirmation.ConfirmationURL, nil
}

// decimalKopecks is a ruble amount in whole kopecks.
func decimalKopecks(d shlyuz.Decimal) (int64, bool) {
	a := yookassa.Amount{Value: d.String(), Currency: "RUB"}
	k, err := a.Kopecks()
	return k, err == nil
}
