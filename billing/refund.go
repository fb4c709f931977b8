package billing

import (
	"context"
	"errors"
	"math/big"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/payments/yookassa"
)

// Refunded is a refund applied to the ledger.
type Refunded struct {
	RefundID  string         `json:"refund_id"`
	PaymentID string         `json:"payment_id"`
	Kopecks   int64          `json:"kopecks"`
	Credits   shlyuz.Credits `json:"credits"` // taken back from the account
	Receipt   string         `json:"receipt"` // the refund receipt's registration
	Status    string         `json:"status"`  // the refund's: pending, succeeded, canceled
}

// Refund returns kopecks of a succeeded payment to the payer through the
// acquirer, with its refund receipt when receipts are on, and takes back the
// credits they bought (a top-up's at its rate, a plan's share of its package;
// rounded down, in the payer's favour). key makes a retried refund harmless.
// A refund the acquirer has not finished is taken back when its notification comes.
func (s *Service) Refund(ctx context.Context, paymentID string, kopecks int64, key string) (Refunded, error) {
	if !s.On() {
		return Refunded{}, ErrOff
	}
	p, err := s.store.Payment(ctx, paymentID)
	if errors.Is(err, shlyuz.ErrNoRows) {
		return Refunded{}, ErrNotFound
	}
	if err != nil {
		return Refunded{}, shlyuz.ErrInternal(err)
	}
	paid, _ := decimalKopecks(p.AmountRub)
	if p.Status != shlyuz.PaymentSucceeded || p.ExternalID == "" {
		return Refunded{}, shlyuz.ErrConflict("payment_not_succeeded", "The payment %s has not succeeded; there is nothing to refund.", p.ID)
	}
	if kopecks <= 0 || kopecks > paid {
		return Refunded{}, ErrAmount
	}
	nr := yookassa.NewRefund{PaymentID: p.ExternalID, Amount: yookassa.Rubles(kopecks), Description: "Возврат по платежу " + p.ID}
	if s.cfg.Receipts.Mode != ReceiptOff {
		acct, aerr := s.store.Account(ctx, p.AccountID)
		if aerr != nil {
			return Refunded{}, shlyuz.ErrInternal(aerr)
		}
		nr.Receipt = s.cfg.Receipts.receipt(acct.Email, s.line(ctx, p), kopecks)
	}
	r, err := s.yk.CreateRefund(ctx, "refund-"+p.ID+"-"+key, nr)
	if err != nil {
		s.log.Error("billing: refund", "payment", p.ID, "err", err)
		return Refunded{}, acquirerError("refund", err)
	}
	out := Refunded{RefundID: r.ID, PaymentID: p.ID, Kopecks: kopecks, Receipt: r.ReceiptRegistration, Status: r.Status}
	if r.Status != yookassa.StatusSucceeded {
		return out, nil
	}
	out.Credits, err = s.takeBack(p, r)
	return out, err
}

// refunded applies a refund.succeeded notification: the refund is fetched back
// (and so its payment and amount) and taken back once per refund id.
func (s *Service) refunded(ctx context.Context, refundID string) (Notified, error) {
	r, err := s.yk.GetRefund(ctx, refundID)
	var apiErr *yookassa.APIError
	if errors.As(err, &apiErr) && apiErr.Status == 404 {
		return Notified{}, shlyuz.ErrNotFound("Refund " + refundID)
	}
	if err != nil {
		return Notified{}, acquirerError("refund", err)
	}
	if r.Status != yookassa.StatusSucceeded {
		return Notified{Ignored: "refund " + r.Status}, nil
	}
	p, perr := s.store.PaymentByExternalID(ctx, r.PaymentID)
	if errors.Is(perr, shlyuz.ErrNoRows) {
		return Notified{}, shlyuz.ErrNotFound("Payment " + r.PaymentID)
	}
	if perr != nil {
		return Notified{}, shlyuz.ErrInternal(perr)
	}
	_, err = s.takeBack(p, r)
	return Notified{}, err
}

// takeBack debits what a succeeded refund returned, once per refund id: a
// top-up's refund takes bought credits at the top-up's rate; a plan's takes
// its share of the package.
func (s *Service) takeBack(p shlyuz.Payment, r *yookassa.Refund) (shlyuz.Credits, error) {
	refunded, kerr := r.Amount.Kopecks()
	paid, _ := decimalKopecks(p.AmountRub)
	if p.Status != shlyuz.PaymentSucceeded || kerr != nil || refunded <= 0 || refunded > paid {
		return 0, shlyuz.ErrConflict("refund_mismatch", "The refund %s does not match a credited payment.", r.ID)
	}
	share := new(big.Int).Div(new(big.Int).Mul(big.NewInt(p.Credits), big.NewInt(refunded)), big.NewInt(paid)).Int64()
	var pkg, bought shlyuz.Credits
	if p.Kind == shlyuz.PaymentPlan {
		pkg = -share
	} else {
		bought = -share
	}
	if _, _, err := s.gw.Refund(p.AccountID, pkg, bought, r.ID); err != nil {
		return 0, err
	}
	return share, nil
}
