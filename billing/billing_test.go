package billing_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/billing"
	"github.com/shlyuz/shlyuz/cluster"
	"github.com/shlyuz/shlyuz/payments/yookassa"
	"github.com/shlyuz/shlyuz/payments/yookassa/fake"
	"github.com/shlyuz/shlyuz/persistence/sqlite"
)

// gateway is a one-node gateway on a SQLite file with one account; one per test process.
func gateway(t *testing.T) (*actors.Gateway, shlyuz.Account) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "billing.db"))
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return quiet }))
	journal := actors.NewJournal(store, 5*time.Millisecond, quiet, actors.JournalMetrics{})
	gw, err := actors.New(actors.Options{System: sys, Store: store, Journal: journal, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := cluster.Start(sys, cluster.Config{}, gw.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if err := gw.Attach(ctx, dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		gw.Stop()
		dir.Stop()
		_ = journal.Close(context.Background())
		_ = store.Close()
	})
	a := shlyuz.Account{ID: "acct-1", Email: "payer@example.com", CreatedAt: time.Now().UTC()}
	if err := store.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	return gw, a
}

// TestReceiptAfterPayment: in after_payment mode the payment goes without a
// receipt, and once it has succeeded and been credited the receipt is
// registered through /v3/receipts, once, adding up to the payment.
func TestReceiptAfterPayment(t *testing.T) {
	gw, acct := gateway(t)
	f := fake.New("shop", "secret")
	f.RequireReceipts = false
	srv := httptest.NewServer(f)
	defer srv.Close()
	b, err := billing.New(gw, billing.Config{YooKassa: &yookassa.Client{BaseURL: srv.URL, ShopID: "shop", SecretKey: "secret"},
		Receipts: billing.Receipts{Mode: billing.ReceiptAfterPayment, PaymentMode: "advance", PaymentSubject: "payment"}, PublicURL: "http://gw.test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := b.TopUp(ctx, acct, 999); err == nil {
		t.Fatal("a top-up under the minimum was started")
	}
	if _, err := b.TopUp(ctx, acct, 12345); err != nil {
		t.Fatal(err)
	}
	pays, err := b.Payments(ctx, acct.ID, 10)
	if err != nil || len(pays) != 1 || pays[0].Receipt != shlyuz.ReceiptUnsent {
		t.Fatalf("payments: %+v %v", pays, err)
	}
	if err := f.Settle(pays[0].ExternalID, yookassa.StatusSucceeded, "payment.succeeded"); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the payer's return page, twice: one credit, one receipt
		p, err := b.Payment(ctx, acct.ID, pays[0].ID)
		if err != nil || p.Status != shlyuz.PaymentSucceeded || p.Receipt != shlyuz.ReceiptSucceeded {
			t.Fatalf("payment: %+v %v", p, err)
		}
	}
	rcs := f.Receipts()
	if len(rcs) != 1 || rcs[0].Type != "payment" || rcs[0].PaymentID != pays[0].ExternalID || rcs[0].Kopecks != 12345 ||
		rcs[0].Customer.Email != acct.Email || rcs[0].Items[0].PaymentMode != "advance" || rcs[0].Items[0].Description != billing.DefaultTopUpItem {
		t.Fatalf("receipts: %+v", rcs)
	}
	bal, gerr := gw.Balance(acct.ID)
	if gerr != nil || bal.Balance.BoughtCredits != 12345*1000 {
		t.Fatalf("balance: %+v %v", bal, gerr)
	}
	if _, err := b.Payment(ctx, "someone-else", pays[0].ID); err != billing.ErrNotFound {
		t.Fatalf("another account's payment: %v", err)
	}
	receiptSettings(t, gw)
}

// receiptSettings: a receipt setting out of range is refused when the service is built.
// (It shares the test gateway: protoactor's cluster members race when several start in one process.)
func receiptSettings(t *testing.T, gw *actors.Gateway) {
	for _, tc := range []struct {
		r    billing.Receipts
		fine bool
	}{
		{billing.Receipts{}, true},
		{billing.Receipts{Mode: "off"}, true},
		{billing.Receipts{Mode: "later"}, false},
		{billing.Receipts{VATCode: 13}, false},
		{billing.Receipts{PaymentMode: "prepaid"}, false},
	} {
		if _, err := billing.New(gw, billing.Config{Receipts: tc.r}); (err == nil) != tc.fine {
			t.Errorf("%+v: %v", tc.r, err)
		}
	}
}
