package yookassa

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"unicode/utf8"
)

// Receipt is the 54-FZ receipt sent inside a payment or a refund: whom it is
// sent to, its lines and the shop's tax system.
type Receipt struct {
	Customer      Customer      `json:"customer"`
	Items         []ReceiptItem `json:"items"`
	TaxSystemCode int           `json:"tax_system_code,omitempty"`
}

// Customer is whom the receipt is sent to.
type Customer struct {
	Email string `json:"email,omitempty"`
	Phone string `json:"phone,omitempty"`
}

// ReceiptItem is one line of a receipt. Amount is the price of one unit;
// the line's total is Amount × Quantity.
type ReceiptItem struct {
	Description    string `json:"description"`
	Quantity       string `json:"quantity"`
	Amount         Amount `json:"amount"`
	VATCode        int    `json:"vat_code"`
	PaymentMode    string `json:"payment_mode,omitempty"`
	PaymentSubject string `json:"payment_subject,omitempty"`
}

// Receipt types of /v3/receipts.
const (
	ReceiptPayment = "payment"
	ReceiptRefund  = "refund"
)

// Settlement is how a receipt was paid; "cashless" for money that came by card or wallet.
type Settlement struct {
	Type   string `json:"type"`
	Amount Amount `json:"amount"`
}

// NewReceipt is the body of POST /v3/receipts: a receipt registered after its
// payment (type payment, with payment_id) or refund (type refund, with refund_id).
type NewReceipt struct {
	Type          string        `json:"type"`
	PaymentID     string        `json:"payment_id,omitempty"`
	RefundID      string        `json:"refund_id,omitempty"`
	Customer      Customer      `json:"customer"`
	Items         []ReceiptItem `json:"items"`
	Settlements   []Settlement  `json:"settlements"`
	Send          bool          `json:"send"`
	TaxSystemCode int           `json:"tax_system_code,omitempty"`
}

// RegisteredReceipt is a receipt as the API returns it.
type RegisteredReceipt struct {
	ID            string        `json:"id"`
	Type          string        `json:"type"`
	PaymentID     string        `json:"payment_id,omitempty"`
	RefundID      string        `json:"refund_id,omitempty"`
	Status        string        `json:"status"` // pending, succeeded, canceled
	Items         []ReceiptItem `json:"items"`
	Settlements   []Settlement  `json:"settlements,omitempty"`
	TaxSystemCode int           `json:"tax_system_code,omitempty"`
}

// ReceiptSettings are a shop's fiscal settings: the VAT code of its lines, its
// tax system (0: not sent, the shop's own setting applies), and what a line
// is (payment_subject) and how it is paid (payment_mode).
type ReceiptSettings struct {
	VATCode        int
	TaxSystemCode  int
	PaymentSubject string
	PaymentMode    string
}

// The values YooKassa accepts for a line's payment_subject and payment_mode.
var (
	PaymentSubjects = []string{"commodity", "excise", "job", "service", "gambling_bet", "gambling_prize", "lottery",
		"lottery_prize", "intellectual_activity", "payment", "agent_commission", "composite", "another", "property_right",
		"non_operating_gain", "insurance_premium", "sales_tax", "resort_fee"}
	PaymentModes = []string{"full_prepayment", "partial_prepayment", "advance", "full_payment", "partial_payment",
		"credit", "credit_payment"}
)

// Check says which setting is out of YooKassa's range, naming it as the
// operator's config does (receipts.vat_code, …); nil when all are in range.
func (s ReceiptSettings) Check() error {
	switch {
	case s.VATCode < 1 || s.VATCode > 12:
		return fmt.Errorf("receipts.vat_code is 1…12 (1: no VAT), not %d", s.VATCode)
	case s.TaxSystemCode < 0 || s.TaxSystemCode > 6:
		return fmt.Errorf("receipts.tax_system_code is 1…6, or 0 to leave it to the shop's settings, not %d", s.TaxSystemCode)
	case !oneOf(s.PaymentSubject, PaymentSubjects):
		return fmt.Errorf("receipts.payment_subject is one of %v, not %q", PaymentSubjects, s.PaymentSubject)
	case !oneOf(s.PaymentMode, PaymentModes):
		return fmt.Errorf("receipts.payment_mode is one of %v, not %q", PaymentModes, s.PaymentMode)
	}
	return nil
}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// MaxItemDescription is the longest line description YooKassa takes, in characters.
const MaxItemDescription = 128

// Receipt is a receipt of one line of the description for kopecks, to email:
// the whole amount in one unit, so the line adds up to the payment exactly.
func (s ReceiptSettings) Receipt(email, description string, kopecks int64) *Receipt {
	if utf8.RuneCountInString(description) > MaxItemDescription {
		description = string([]rune(description)[:MaxItemDescription])
	}
	return &Receipt{Customer: Customer{Email: email}, TaxSystemCode: s.TaxSystemCode, Items: []ReceiptItem{{
		Description: description, Quantity: "1.00", Amount: Rubles(kopecks),
		VATCode: s.VATCode, PaymentMode: s.PaymentMode, PaymentSubject: s.PaymentSubject,
	}}}
}

// Total is what the receipt's lines add up to, in kopecks; an error for a line
// whose quantity is not a decimal with up to three places, or whose total is not whole kopecks.
func (r *Receipt) Total() (int64, error) { return ItemsTotal(r.Items) }

// ItemsTotal is what the lines add up to, in kopecks.
func ItemsTotal(items []ReceiptItem) (int64, error) {
	var sum int64
	for i, it := range items {
		k, err := it.Amount.Kopecks()
		if err != nil {
			return 0, fmt.Errorf("item %d: %w", i, err)
		}
		q, err := (Amount{Value: it.Quantity, Currency: "RUB"}).milli()
		if err != nil || q <= 0 {
			return 0, fmt.Errorf("item %d: quantity %q is not a positive decimal with up to three places", i, it.Quantity)
		}
		if k > 1<<40 || q > 1<<20 || (k*q)%1000 != 0 {
			return 0, fmt.Errorf("item %d: %s × %s is not whole kopecks", i, it.Amount.Value, it.Quantity)
		}
		sum += k * q / 1000
	}
	return sum, nil
}

// milli reads a decimal with up to three places as thousandths.
func (a Amount) milli() (int64, error) {
	var whole, frac int64
	var n int
	seenDot := false
	for i, r := range a.Value {
		switch {
		case r == '.' && !seenDot && i > 0:
			seenDot = true
		case r >= '0' && r <= '9' && !seenDot:
			if whole > 1<<40 {
				return 0, fmt.Errorf("too large")
			}
			whole = whole*10 + int64(r-'0')
		case r >= '0' && r <= '9' && n < 3:
			frac = frac*10 + int64(r-'0')
			n++
		default:
			return 0, fmt.Errorf("not a decimal")
		}
	}
	if a.Value == "" {
		return 0, fmt.Errorf("empty")
	}
	for ; n < 3; n++ {
		frac *= 10
	}
	return whole*1000 + frac, nil
}

// CreateReceipt registers a receipt after its payment or refund, once per idempotence key.
func (c *Client) CreateReceipt(ctx context.Context, idempotenceKey string, r NewReceipt) (*RegisteredReceipt, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var out RegisteredReceipt
	return &out, c.do(ctx, http.MethodPost, "/v3/receipts", idempotenceKey, body, &out)
}

// ReceiptsOf lists the receipts registered for a payment.
func (c *Client) ReceiptsOf(ctx context.Context, paymentID string) ([]RegisteredReceipt, error) {
	var out struct {
		Items []RegisteredReceipt `json:"items"`
	}
	return out.Items, c.do(ctx, http.MethodGet, "/v3/receipts?payment_id="+url.QueryEscape(paymentID), "", nil, &out)
}
