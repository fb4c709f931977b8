package yookassa_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/shlyuz/shlyuz/payments/yookassa"
	"github.com/shlyuz/shlyuz/payments/yookassa/fake"
)

func TestAmounts(t *testing.T) {
	for _, tc := range []struct {
		kop  int64
		want string
	}{{50000, "500.00"}, {1, "0.01"}, {12345, "123.45"}, {0, "0.00"}} {
		a := yookassa.Rubles(tc.kop)
		if a.Value != tc.want || a.Currency != "RUB" {
			t.Errorf("Rubles(%d) = %+v", tc.kop, a)
		}
		if back, err := a.Kopecks(); err != nil || back != tc.kop {
			t.Errorf("Kopecks(%q) = %d, %v", a.Value, back, err)
		}
	}
	for _, a := range []yookassa.Amount{{Value: "1.001", Currency: "RUB"}, {Value: "1.00", Currency: "USD"}, {Value: "x", Currency: "RUB"}} {
		if _, err := a.Kopecks(); err == nil {
			t.Errorf("Kopecks(%+v) accepted", a)
		}
	}
}

var settings = yookassa.ReceiptSettings{VATCode: 1, PaymentSubject: "service", PaymentMode: "full_prepayment"}

func TestClientAgainstFake(t *testing.T) {
	f := fake.New("shop", "secret")
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := &yookassa.Client{BaseURL: srv.URL, ShopID: "shop", SecretKey: "secret"}
	ctx := context.Background()
	req := yookassa.NewPayment{Amount: yookassa.Rubles(50000), Capture: true,
		Confirmation: yookassa.Confirmation{Type: "redirect", ReturnURL: "http://shop.test/back"},
		Metadata:     map[string]string{"payment_id": "pay-1"}, Receipt: settings.Receipt("a@example.com", "Пополнение баланса Шлюз", 50000)}
	p, err := c.CreatePayment(ctx, "pay-1", req)
	if err != nil || p.Status != yookassa.StatusPending || p.Confirmation == nil || p.Confirmation.ConfirmationURL == "" {
		t.Fatalf("create: %+v %v", p, err)
	}
	again, err := c.CreatePayment(ctx, "pay-1", req)
	if err != nil || again.ID != p.ID {
		t.Fatalf("the same Idempotence-Key made another payment: %+v %v", again, err)
	}
	other := req
	other.Amount = yookassa.Rubles(1)
	var apiErr *yookassa.APIError
	if _, err := c.CreatePayment(ctx, "pay-1", other); !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Fatalf("a reused key with another body: %v", err)
	}
	noReceipt := req
	noReceipt.Receipt = nil
	if _, err := c.CreatePayment(ctx, "pay-2", noReceipt); !errors.As(err, &apiErr) || apiErr.Parameter != "receipt" {
		t.Fatalf("no receipt: %v", err)
	}
	if err := f.Settle(p.ID, yookassa.StatusSucceeded, "payment.succeeded"); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetPayment(ctx, p.ID)
	if err != nil || got.Status != yookassa.StatusSucceeded || !got.Paid {
		t.Fatalf("get: %+v %v", got, err)
	}
	if err := f.Settle(p.ID, yookassa.StatusCanceled, "payment.canceled"); err == nil {
		t.Fatal("a settled payment changed again")
	}
	if _, err := f.Refund(p.ID, 50001); err == nil {
		t.Fatal("a refund above the payment was made")
	}
	r, err := f.Refund(p.ID, 20000)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetRefund(ctx, r.ID); err != nil || got.PaymentID != p.ID || got.Status != yookassa.StatusSucceeded || got.Amount.Value != "200.00" {
		t.Fatalf("refund: %+v %v", got, err)
	}
	if _, err := f.Refund(p.ID, 30001); err == nil {
		t.Fatal("refunds above the payment in sum were made")
	}
	bad := &yookassa.Client{BaseURL: srv.URL, ShopID: "shop", SecretKey: "wrong"}
	if _, err := bad.GetPayment(ctx, p.ID); !errors.As(err, &apiErr) || apiErr.Status != 401 {
		t.Fatalf("wrong secret: %v", err)
	}
	if _, err := c.GetPayment(ctx, "nothing"); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("unknown payment: %v", err)
	}
}
