package yookassa_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/payments/yookassa"
	"github.com/shlyuz/shlyuz/payments/yookassa/fake"
)

func newPayment(kop int64, r *yookassa.Receipt) yookassa.NewPayment {
	return yookassa.NewPayment{Amount: yookassa.Rubles(kop), Capture: true,
		Confirmation: yookassa.Confirmation{Type: "redirect", ReturnURL: "http://shop.test/back"}, Receipt: r}
}

// TestReceiptsRequired: a shop that requires receipts refuses a payment
// without a valid one in YooKassa's error shape, takes one whose lines add
// up to the payment, and keeps the receipt once the payment succeeds.
func TestReceiptsRequired(t *testing.T) {
	f := fake.New("shop", "secret")
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := &yookassa.Client{BaseURL: srv.URL, ShopID: "shop", SecretKey: "secret"}
	ctx := context.Background()
	item := func(desc, qty, value string, vat int) yookassa.ReceiptItem {
		return yookassa.ReceiptItem{Description: desc, Quantity: qty, Amount: yookassa.Amount{Value: value, Currency: "RUB"},
			VATCode: vat, PaymentSubject: "service", PaymentMode: "full_prepayment"}
	}
	receipt := func(email string, items ...yookassa.ReceiptItem) *yookassa.Receipt {
		return &yookassa.Receipt{Customer: yookassa.Customer{Email: email}, Items: items}
	}
	for _, tc := range []struct {
		name    string
		receipt *yookassa.Receipt
		param   string // "" = accepted
	}{
		{"no receipt", nil, "receipt"},
		{"no customer", receipt("", item("Пополнение", "1.00", "100.00", 1)), "receipt.customer"},
		{"no items", receipt("a@example.com"), "receipt.items"},
		{"items short by a kopeck", receipt("a@example.com", item("Пополнение", "1.00", "99.99", 1)), "receipt"},
		{"items over by a kopeck", receipt("a@example.com", item("Пополнение", "1.00", "60.00", 1), item("Тариф", "1", "40.01", 1)), "receipt"},
		{"bad vat code", receipt("a@example.com", item("Пополнение", "1.00", "100.00", 13)), "receipt.items[0].vat_code"},
		{"fractional kopeck", receipt("a@example.com", item("Пополнение", "0.333", "300.01", 1)), "receipt.items[0].quantity"},
		{"one line", settings.Receipt("a@example.com", "Пополнение баланса Шлюз", 10000), ""},
		{"two lines, quantities", receipt("a@example.com", item("Пополнение", "2", "30.00", 1), item("Тариф", "0.5", "80.00", 1)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := c.CreatePayment(ctx, "pay-"+tc.name, newPayment(10000, tc.receipt))
			var apiErr *yookassa.APIError
			if tc.param == "" {
				if err != nil || p.ReceiptRegistration != "pending" {
					t.Fatalf("refused: %+v %v", p, err)
				}
				return
			}
			if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Code != "invalid_request" || apiErr.Parameter != tc.param || apiErr.ID == "" || apiErr.Description == "" {
				t.Fatalf("want invalid_request on %s, got %v (%+v)", tc.param, err, apiErr)
			}
		})
	}
	// The error's body is YooKassa's shape, read raw.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v3/payments", strings.NewReader(`{"amount":{"value":"1.00","currency":"RUB"},"capture":true,"confirmation":{"type":"redirect","return_url":"http://x"}}`))
	req.SetBasicAuth("shop", "secret")
	req.Header.Set("Idempotence-Key", "raw")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var shape map[string]string
	if err := json.Unmarshal(raw, &shape); err != nil || resp.StatusCode != 400 || shape["type"] != "error" || shape["code"] != "invalid_request" ||
		shape["parameter"] != "receipt" || shape["id"] == "" || shape["description"] == "" || len(shape) != 5 {
		t.Fatalf("error body %d %s", resp.StatusCode, raw)
	}

	p, err := c.CreatePayment(ctx, "pay-kept", newPayment(12345, settings.Receipt("b@example.com", "Пополнение баланса Шлюз", 12345)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Settle(p.ID, yookassa.StatusSucceeded, "payment.succeeded"); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetPayment(ctx, p.ID); err != nil || got.ReceiptRegistration != "succeeded" {
		t.Fatalf("receipt registration: %+v %v", got, err)
	}
	kept, err := c.ReceiptsOf(ctx, p.ID)
	if err != nil || len(kept) != 1 || kept[0].Type != "payment" || kept[0].Status != "succeeded" {
		t.Fatalf("receipts of the payment: %+v %v", kept, err)
	}
	if len(kept[0].Items) != 1 || kept[0].Items[0].Amount.Value != "123.45" || kept[0].Items[0].Description != "Пополнение баланса Шлюз" {
		t.Fatalf("the receipt's lines: %+v", kept[0].Items)
	}

	// A refund needs its refund receipt, and it is kept.
	if _, err := c.CreateRefund(ctx, "ref-1", yookassa.NewRefund{PaymentID: p.ID, Amount: yookassa.Rubles(2345)}); err == nil {
		t.Fatal("a refund without a receipt was made")
	}
	wrong := yookassa.NewRefund{PaymentID: p.ID, Amount: yookassa.Rubles(2345), Receipt: settings.Receipt("b@example.com", "Возврат", 2344)}
	if _, err := c.CreateRefund(ctx, "ref-2", wrong); err == nil {
		t.Fatal("a refund whose receipt is a kopeck short was made")
	}
	ok := yookassa.NewRefund{PaymentID: p.ID, Amount: yookassa.Rubles(2345), Receipt: settings.Receipt("b@example.com", "Пополнение баланса Шлюз", 2345)}
	r, err := c.CreateRefund(ctx, "ref-3", ok)
	if err != nil || r.Status != yookassa.StatusSucceeded || r.ReceiptRegistration != "succeeded" {
		t.Fatalf("refund: %+v %v", r, err)
	}
	if again, err := c.CreateRefund(ctx, "ref-3", ok); err != nil || again.ID != r.ID {
		t.Fatalf("a retried refund made another: %+v %v", again, err)
	}
	var refunds int
	for _, rc := range f.Receipts() {
		if rc.Type == "refund" {
			refunds++
			if rc.RefundID != r.ID || rc.Kopecks != 2345 {
				t.Fatalf("refund receipt %+v", rc)
			}
		}
	}
	if refunds != 1 {
		t.Fatalf("%d refund receipts, want 1", refunds)
	}
}

// TestReceiptAfterPayment: a shop that registers receipts after the payment
// takes the payment without one and the receipt through /v3/receipts, only
// for a payment that succeeded and only when its lines and settlements add up.
func TestReceiptAfterPayment(t *testing.T) {
	f := fake.New("shop", "secret")
	f.RequireReceipts = false
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := &yookassa.Client{BaseURL: srv.URL, ShopID: "shop", SecretKey: "secret"}
	ctx := context.Background()
	p, err := c.CreatePayment(ctx, "pay-after", newPayment(50000, nil))
	if err != nil || p.ReceiptRegistration != "" {
		t.Fatalf("a payment without a receipt: %+v %v", p, err)
	}
	rc := settings.Receipt("c@example.com", "Тариф «Базовый» Шлюз", 50000)
	nr := yookassa.NewReceipt{Type: yookassa.ReceiptPayment, PaymentID: p.ID, Customer: rc.Customer, Items: rc.Items, Send: true,
		Settlements: []yookassa.Settlement{{Type: "cashless", Amount: yookassa.Rubles(50000)}}}
	if _, err := c.CreateReceipt(ctx, "rc-early", nr); err == nil {
		t.Fatal("a receipt for a payment that has not succeeded was registered")
	}
	if err := f.Settle(p.ID, yookassa.StatusSucceeded, "payment.succeeded"); err != nil {
		t.Fatal(err)
	}
	short := nr
	short.Settlements = []yookassa.Settlement{{Type: "cashless", Amount: yookassa.Rubles(49999)}}
	if _, err := c.CreateReceipt(ctx, "rc-short", short); err == nil {
		t.Fatal("settlements short of the items were taken")
	}
	got, err := c.CreateReceipt(ctx, "rc-1", nr)
	if err != nil || got.Status != "succeeded" || got.PaymentID != p.ID || got.Type != "payment" {
		t.Fatalf("receipt: %+v %v", got, err)
	}
	if again, err := c.CreateReceipt(ctx, "rc-1", nr); err != nil || again.ID != got.ID {
		t.Fatalf("a retried receipt made another: %+v %v", again, err)
	}
	if all := f.Receipts(); len(all) != 1 || all[0].Kopecks != 50000 {
		t.Fatalf("kept: %+v", all)
	}
}

func TestReceiptSettingsCheck(t *testing.T) {
	for _, tc := range []struct {
		s    yookassa.ReceiptSettings
		want string // "" = fine
	}{
		{settings, ""},
		{yookassa.ReceiptSettings{VATCode: 1, TaxSystemCode: 2, PaymentSubject: "payment", PaymentMode: "advance"}, ""},
		{yookassa.ReceiptSettings{VATCode: 0, PaymentSubject: "service", PaymentMode: "full_prepayment"}, "receipts.vat_code"},
		{yookassa.ReceiptSettings{VATCode: 1, TaxSystemCode: 7, PaymentSubject: "service", PaymentMode: "full_prepayment"}, "receipts.tax_system_code"},
		{yookassa.ReceiptSettings{VATCode: 1, PaymentSubject: "services", PaymentMode: "full_prepayment"}, "receipts.payment_subject"},
		{yookassa.ReceiptSettings{VATCode: 1, PaymentSubject: "service", PaymentMode: "prepaid"}, "receipts.payment_mode"},
	} {
		err := tc.s.Check()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
	long := strings.Repeat("я", 200)
	if r := settings.Receipt("a@example.com", long, 1); len([]rune(r.Items[0].Description)) != yookassa.MaxItemDescription {
		t.Fatalf("description not cut to %d characters", yookassa.MaxItemDescription)
	}
}
