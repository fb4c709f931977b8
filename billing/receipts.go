package billing

import (
	"fmt"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/payments/yookassa"
)

// Receipt modes: the receipt goes inside the payment (YooKassa registers it
// when the payment succeeds), after it through POST /v3/receipts once the
// payment has succeeded, or not at all (the shop fiscalises elsewhere).
const (
	ReceiptWithPayment  = "with_payment"
	ReceiptAfterPayment = "after_payment"
	ReceiptOff          = "off"
)

// Receipts are the operator's 54-FZ settings (payments.yookassa.receipts).
type Receipts struct {
	Mode string `yaml:"mode"` // with_payment (default), after_payment, off
	// VATCode is YooKassa's vat_code: 1 no VAT (default), 2 0%, 3 10%, 4 20%, 5 10/110, 6 20/120, 7 5%, 8 7%, 9 5/105, 10 7/107, 11 22%, 12 22/122.
	VATCode int `yaml:"vat_code"`
	// TaxSystemCode is the shop's tax system, 1…6; 0 (default) sends none and the shop's setting applies.
	TaxSystemCode int `yaml:"tax_system_code"`
	// PaymentSubject is what is sold: default "service".
	PaymentSubject string `yaml:"payment_subject"`
	// PaymentMode is how it is paid: default "full_prepayment" (paid before the service is given).
	PaymentMode string `yaml:"payment_mode"`
	// TopUpItem names a top-up's line; default "Пополнение баланса Шлюз".
	TopUpItem string `yaml:"topup_item"`
	// PlanItem names a plan's line, %s the plan's name; default "Тариф «%s» Шлюз".
	PlanItem string `yaml:"plan_item"`
}

// The defaults: a prepaid balance of a service, without VAT.
const (
	DefaultVATCode        = 1
	DefaultPaymentSubject = "service"
	DefaultPaymentMode    = "full_prepayment"
	DefaultTopUpItem      = "Пополнение баланса Шлюз"
	DefaultPlanItem       = "Тариф «%s» Шлюз"
)

func (r Receipts) withDefaults() (Receipts, error) {
	if r.Mode == "" {
		r.Mode = ReceiptWithPayment
	}
	if r.Mode != ReceiptWithPayment && r.Mode != ReceiptAfterPayment && r.Mode != ReceiptOff {
		return r, fmt.Errorf("receipts.mode is with_payment, after_payment or off, not %q", r.Mode)
	}
	if r.VATCode == 0 {
		r.VATCode = DefaultVATCode
	}
	if r.PaymentSubject == "" {
		r.PaymentSubject = DefaultPaymentSubject
	}
	if r.PaymentMode == "" {
		r.PaymentMode = DefaultPaymentMode
	}
	if r.TopUpItem == "" {
		r.TopUpItem = DefaultTopUpItem
	}
	if r.PlanItem == "" {
		r.PlanItem = DefaultPlanItem
	}
	return r, r.settings().Check()
}

func (r Receipts) settings() yookassa.ReceiptSettings {
	return yookassa.ReceiptSettings{VATCode: r.VATCode, TaxSystemCode: r.TaxSystemCode, PaymentSubject: r.PaymentSubject, PaymentMode: r.PaymentMode}
}

// line is the receipt's one line for what the payment buys.
func (r Receipts) line(kind shlyuz.PaymentKind, planName string) string {
	if kind == shlyuz.PaymentPlan {
		return fmt.Sprintf(r.PlanItem, planName)
	}
	return r.TopUpItem
}

// receipt is the receipt of kopecks for the line, to email.
func (r Receipts) receipt(email, line string, kopecks int64) *yookassa.Receipt {
	return r.settings().Receipt(email, line, kopecks)
}

// initial is a new payment's receipt status in this mode.
func (r Receipts) initial() string {
	switch r.Mode {
	case ReceiptWithPayment:
		return shlyuz.ReceiptPending
	case ReceiptAfterPayment:
		return shlyuz.ReceiptUnsent
	}
	return shlyuz.ReceiptNone
}
