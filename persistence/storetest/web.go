package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// testWebLogins: a login is saved, replaced, found by email; unknown ones are ErrNoRows.
func testWebLogins(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	a := mustAccount(t, s, "acct-1")
	_, _, err := s.LoginByEmail(ctx, a.Email)
	wantNoRows(t, "LoginByEmail before a login", err)
	if err := s.SaveLogin(ctx, shlyuz.WebLogin{AccountID: "nobody", PasswordHash: "h"}); !errors.Is(err, shlyuz.ErrNoRows) {
		t.Errorf("SaveLogin(nobody) = %v; want ErrNoRows", err)
	}
	if err := s.SaveLogin(ctx, shlyuz.WebLogin{AccountID: a.ID, PasswordHash: "$argon2id$one"}); err != nil {
		t.Fatal(err)
	}
	gotA, l, err := s.LoginByEmail(ctx, a.Email)
	if err != nil || gotA.ID != a.ID || l.PasswordHash != "$argon2id$one" || l.ConfirmedAt != nil {
		t.Fatalf("LoginByEmail = %+v %+v %v", gotA, l, err)
	}
	confirmed := at(time.Hour)
	if err := s.SaveLogin(ctx, shlyuz.WebLogin{AccountID: a.ID, PasswordHash: "$argon2id$two", ConfirmedAt: &confirmed}); err != nil {
		t.Fatal(err)
	}
	l, err = s.Login(ctx, a.ID)
	if err != nil || l.PasswordHash != "$argon2id$two" || l.ConfirmedAt == nil || !l.ConfirmedAt.Equal(norm(confirmed)) {
		t.Fatalf("Login after replace = %+v %v", l, err)
	}
	_, err = s.Login(ctx, "nobody")
	wantNoRows(t, "Login(nobody)", err)
	mustAccount(t, s, "acct-2")
	accts, err := s.Accounts(ctx, 10, 0)
	if err != nil || len(accts) != 2 {
		t.Fatalf("Accounts = %+v %v; want 2", accts, err)
	}
	if accts, _ := s.Accounts(ctx, 1, 1); len(accts) != 1 {
		t.Errorf("Accounts(1, 1) = %d; want 1", len(accts))
	}
}

// testWebSessions: sessions are stored, found, deleted one by one and all of an account's.
func testWebSessions(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	one := shlyuz.WebSession{ID: "s1", AccountID: "acct-1", CSRF: "c1", CreatedAt: at(0), ExpiresAt: at(time.Hour)}
	two := one
	two.ID, two.CSRF = "s2", "c2"
	for _, ws := range []shlyuz.WebSession{one, two} {
		if err := s.CreateSession(ctx, ws); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Session(ctx, "s1")
	if err != nil || got.AccountID != "acct-1" || got.CSRF != "c1" || !got.ExpiresAt.Equal(norm(one.ExpiresAt)) {
		t.Fatalf("Session(s1) = %+v %v", got, err)
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Session(ctx, "s1")
	wantNoRows(t, "Session after delete", err)
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Errorf("DeleteSession twice: %v", err)
	}
	if err := s.DeleteSessionsOf(ctx, "acct-1"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Session(ctx, "s2")
	wantNoRows(t, "Session after DeleteSessionsOf", err)
}

// testPayments: a payment is created once, updated, found by either id and listed.
func testPayments(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	amount, _ := shlyuz.ParseDecimal("500.50")
	p := shlyuz.Payment{ID: "pay-1", AccountID: "acct-1", Kind: shlyuz.PaymentTopUp, AmountRub: amount, Credits: 50_050_000,
		Status: shlyuz.PaymentPending, CreatedAt: at(0), Receipt: shlyuz.ReceiptPending}
	if err := s.CreatePayment(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.CreatePayment(ctx, p); !errors.Is(err, shlyuz.ErrDuplicate) {
		t.Errorf("CreatePayment twice = %v; want ErrDuplicate", err)
	}
	_, err := s.PaymentByExternalID(ctx, "")
	wantNoRows(t, "PaymentByExternalID('')", err)
	done := at(time.Minute)
	p.ExternalID, p.Status, p.CompletedAt, p.Receipt = "yk-77", shlyuz.PaymentSucceeded, &done, shlyuz.ReceiptSucceeded
	if err := s.UpdatePayment(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, err := s.PaymentByExternalID(ctx, "yk-77")
	if err != nil || got.ID != "pay-1" || got.Status != shlyuz.PaymentSucceeded || got.AmountRub.String() != "500.5" ||
		got.Credits != 50_050_000 || got.CompletedAt == nil || !got.CompletedAt.Equal(norm(done)) || got.Kind != shlyuz.PaymentTopUp ||
		got.Receipt != shlyuz.ReceiptSucceeded {
		t.Fatalf("PaymentByExternalID = %+v %v", got, err)
	}
	if got, err := s.Payment(ctx, "pay-1"); err != nil || got.ExternalID != "yk-77" {
		t.Errorf("Payment = %+v %v", got, err)
	}
	_, err = s.Payment(ctx, "nothing")
	wantNoRows(t, "Payment(nothing)", err)
	if err := s.UpdatePayment(ctx, shlyuz.Payment{ID: "nothing"}); !errors.Is(err, shlyuz.ErrNoRows) {
		t.Errorf("UpdatePayment(nothing) = %v; want ErrNoRows", err)
	}
	if ps, err := s.PaymentsOf(ctx, "acct-1", 10); err != nil || len(ps) != 1 {
		t.Errorf("PaymentsOf = %+v %v", ps, err)
	}
}

// testActivity: an account's generations, newest first, filtered by key,
// model, end user and time, paged; the sums per day group by end user.
func testActivity(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")
	var gens []shlyuz.Generation
	for i, spec := range []struct{ key, model, user string }{{"k1", "a/x", "u-1"}, {"k2", "a/x", ""}, {"k1", "b/y", "u-1"}, {"k2", "b/y", "u-2"}} {
		g := generation("gen-"+string(rune('a'+i)), "acct-1")
		g.KeyID, g.Model, g.User, g.CreatedAt = spec.key, spec.model, spec.user, at(time.Duration(i)*time.Minute)
		gens = append(gens, g)
	}
	other := generation("gen-other", "acct-2")
	mustCommit(t, s, shlyuz.Batch{Generations: append(gens, other)})
	ids := func(f shlyuz.GenerationFilter) string {
		t.Helper()
		gs, err := s.Generations(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, g := range gs {
			out += g.ID + " "
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    shlyuz.GenerationFilter
		want string
	}{
		{"all", shlyuz.GenerationFilter{AccountID: "acct-1"}, "gen-d gen-c gen-b gen-a "},
		{"key", shlyuz.GenerationFilter{AccountID: "acct-1", KeyID: "k1"}, "gen-c gen-a "},
		{"model", shlyuz.GenerationFilter{AccountID: "acct-1", Model: "a/x"}, "gen-b gen-a "},
		{"both", shlyuz.GenerationFilter{AccountID: "acct-1", KeyID: "k2", Model: "b/y"}, "gen-d "},
		{"since", shlyuz.GenerationFilter{AccountID: "acct-1", Since: at(2 * time.Minute)}, "gen-d gen-c "},
		{"page", shlyuz.GenerationFilter{AccountID: "acct-1", Limit: 2, Offset: 1}, "gen-c gen-b "},
		{"nobody", shlyuz.GenerationFilter{AccountID: "acct-3"}, ""},
		{"end user", shlyuz.GenerationFilter{AccountID: "acct-1", User: "u-1"}, "gen-c gen-a "},
	} {
		if got := ids(tc.f); got != tc.want {
			t.Errorf("%s: Generations = %q; want %q", tc.name, got, tc.want)
		}
	}
	if gs, err := s.Generations(ctx, shlyuz.GenerationFilter{AccountID: "acct-1", User: "u-2"}); err != nil || len(gs) != 1 || gs[0].User != "u-2" {
		t.Errorf("the end user's generation = %+v %v", gs, err)
	}
	rows, err := s.Activity(ctx, "acct-1", at(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	perUser := map[string]int64{}
	for _, r := range rows {
		perUser[r.User] += r.Requests
	}
	if perUser["u-1"] != 2 || perUser["u-2"] != 1 || perUser[""] != 1 {
		t.Errorf("Activity's requests per end user = %v; want u-1: 2, u-2: 1, none: 1", perUser)
	}
}

// testRateChanges: changes are kept and listed newest first.
func testRateChanges(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	if cs, err := s.RateChanges(ctx, 10); err != nil || len(cs) != 0 {
		t.Fatalf("RateChanges of an empty store = %+v %v", cs, err)
	}
	for i, by := range []string{shlyuz.RateByCBR, shlyuz.RateByOperator, shlyuz.RateByUnpin} {
		c := shlyuz.RateChange{ID: "rc-" + by, At: at(time.Duration(i) * time.Hour), By: by,
			Old: shlyuz.MustDecimal("81.5"), New: shlyuz.MustDecimal("92.0421")}
		if err := s.RecordRateChange(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := s.RateChanges(ctx, 2)
	if err != nil || len(cs) != 2 || cs[0].By != shlyuz.RateByUnpin || cs[1].By != shlyuz.RateByOperator {
		t.Fatalf("RateChanges = %+v %v", cs, err)
	}
	if cs[0].Old.String() != "81.5" || cs[0].New.String() != "92.0421" || !cs[0].At.Equal(norm(at(2*time.Hour))) {
		t.Errorf("RateChanges[0] = %+v", cs[0])
	}
	if shlyuz.Pinned(&cs[0]) || !shlyuz.Pinned(&cs[1]) || shlyuz.Pinned(nil) {
		t.Error("Pinned is wrong")
	}
}
