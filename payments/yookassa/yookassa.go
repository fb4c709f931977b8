// Package yookassa is a client of YooKassa's payments API (v3): it creates a
// payment with a redirect confirmation and a 54-FZ receipt, fetches a
// payment back (the only way a notification is believed), makes refunds with
// their refund receipts, and registers receipts after a payment (/v3/receipts).
package yookassa

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultBaseURL is YooKassa's production API.
const DefaultBaseURL = "https://api.yookassa.ru"

// Payment statuses.
const (
	StatusPending           = "pending"
	StatusWaitingForCapture = "waiting_for_capture"
	StatusSucceeded         = "succeeded"
	StatusCanceled          = "canceled"
)

// Client calls the API of one shop.
type Client struct {
	BaseURL   string // DefaultBaseURL when empty
	ShopID    string
	SecretKey string
	HTTP      *http.Client // a client with a 30s timeout when nil
}

// Amount is money as YooKassa writes it: a decimal string with two places.
type Amount struct {
	Value    string `json:"value"`
	Currency string `json:"currency"`
}

// Rubles is an amount of kopecks in rubles.
func Rubles(kopecks int64) Amount {
	return Amount{Value: strconv.FormatInt(kopecks/100, 10) + "." + fmt.Sprintf("%02d", kopecks%100), Currency: "RUB"}
}

// Kopecks reads an amount back; an amount with more than two places or not in rubles is an error.
func (a Amount) Kopecks() (int64, error) {
	if a.Currency != "RUB" {
		return 0, fmt.Errorf("yookassa: amount in %q, not RUB", a.Currency)
	}
	whole, frac, _ := strings.Cut(a.Value, ".")
	if len(frac) > 2 {
		return 0, fmt.Errorf("yookassa: amount %q has more than two decimals", a.Value)
	}
	frac += strings.Repeat("0", 2-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || w < 0 || f < 0 {
		return 0, fmt.Errorf("yookassa: amount %q is not a number", a.Value)
	}
	return w*100 + f, nil
}

// Confirmation is how the payer confirms: a redirect to the acquirer's page.
type Confirmation struct {
	Type            string `json:"type"`
	ReturnURL       string `json:"return_url,omitempty"`
	ConfirmationURL string `json:"confirmation_url,omitempty"`
}

// NewPayment is the body of POST /v3/payments.
type NewPayment struct {
	Amount       Amount            `json:"amount"`
	Capture      bool              `json:"capture"`
	Confirmation Confirmation      `json:"confirmation"`
	Description  string            `json:"description,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	Receipt      *Receipt          `json:"receipt,omitempty"`
}

// Payment is a payment as the API returns it.
type Payment struct {
	ID           string            `json:"id"`
	Status       string            `json:"status"`
	Paid         bool              `json:"paid"`
	Amount       Amount            `json:"amount"`
	Confirmation *Confirmation     `json:"confirmation,omitempty"`
	Description  string            `json:"description,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	CreatedAt    time.Time         `json:"created_at"`
	Test         bool              `json:"test"`
	// ReceiptRegistration is how the receipt sent with the payment fares:
	// pending, succeeded or canceled; absent when the payment carried none.
	ReceiptRegistration string `json:"receipt_registration,omitempty"`
}

// Notification is what YooKassa POSTs to the shop's notification URL.
type Notification struct {
	Type   string          `json:"type"`  // "notification"
	Event  string          `json:"event"` // payment.succeeded, payment.canceled, refund.succeeded, …
	Object json.RawMessage `json:"object"`
}

// ObjectID is the id of the notification's object (a payment, or a refund's payment_id).
func (n *Notification) ObjectID() (id, paymentID string, err error) {
	var o struct {
		ID        string `json:"id"`
		PaymentID string `json:"payment_id"`
	}
	if err := json.Unmarshal(n.Object, &o); err != nil {
		return "", "", fmt.Errorf("yookassa: notification object: %w", err)
	}
	return o.ID, o.PaymentID, nil
}

// Refund is a refund as the API returns it.
type Refund struct {
	ID        string    `json:"id"`
	PaymentID string    `json:"payment_id"`
	Status    string    `json:"status"` // pending, succeeded, canceled
	Amount    Amount    `json:"amount"`
	CreatedAt time.Time `json:"created_at"`
	// ReceiptRegistration is how the refund's receipt fares (pending, succeeded, canceled).
	ReceiptRegistration string `json:"receipt_registration,omitempty"`
	Description         string `json:"description,omitempty"`
}

// NewRefund is the body of POST /v3/refunds: what of a succeeded payment goes back, and its refund receipt.
type NewRefund struct {
	PaymentID   string   `json:"payment_id"`
	Amount      Amount   `json:"amount"`
	Description string   `json:"description,omitempty"`
	Receipt     *Receipt `json:"receipt,omitempty"`
}

// APIError is an error reply of the API: {"type":"error","id","code","description","parameter"}.
type APIError struct {
	Status      int
	ID          string `json:"id"`
	Code        string `json:"code"`
	Description string `json:"description"`
	Parameter   string `json:"parameter"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("yookassa: %d %s: %s", e.Status, e.Code, e.Description)
}

// CreatePayment creates a payment once per idempotence key: a retry with the same key returns the same payment.
func (c *Client) CreatePayment(ctx context.Context, idempotenceKey string, p NewPayment) (*Payment, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var out Payment
	return &out, c.do(ctx, http.MethodPost, "/v3/payments", idempotenceKey, body, &out)
}

// GetPayment fetches a payment.
func (c *Client) GetPayment(ctx context.Context, id string) (*Payment, error) {
	var out Payment
	return &out, c.do(ctx, http.MethodGet, "/v3/payments/"+id, "", nil, &out)
}

// CreateRefund returns money of a succeeded payment to the payer, once per idempotence key.
func (c *Client) CreateRefund(ctx context.Context, idempotenceKey string, r NewRefund) (*Refund, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var out Refund
	return &out, c.do(ctx, http.MethodPost, "/v3/refunds", idempotenceKey, body, &out)
}

// GetRefund fetches a refund.
func (c *Client) GetRefund(ctx context.Context, id string) (*Refund, error) {
	var out Refund
	return &out, c.do(ctx, http.MethodGet, "/v3/refunds/"+id, "", nil, &out)
}

func (c *Client) do(ctx context.Context, method, path, idem string, body []byte, out any) error {
	base := c.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.SetBasicAuth(c.ShopID, c.SecretKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		req.Header.Set("Idempotence-Key", idem)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("yookassa: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("yookassa: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		e := &APIError{Status: resp.StatusCode}
		_ = json.Unmarshal(raw, e)
		return e
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("yookassa: %s %s: %w", method, path, err)
	}
	return nil
}
