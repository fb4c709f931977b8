package main

import (
	"context"
	"testing"
)

// TestMoneyBounds: amounts past shlyuz.MaxCredits (10^15 credits, ten
// billion rubles) and prices past their bounds are a 400 at the operator API,
// a balance never passes the bound (and the account stays loadable), and a
// balance and a key ceiling of 10^13 credits still serve calls.
func TestMoneyBounds(t *testing.T) {
	const maxCredits = 1_000_000_000_000_000 // docs/billing.md: the bound of every amount
	id, key := account(t, h.base, 0, nil)
	topUp := func(body map[string]any) int {
		return call(t, h.base, "POST", "/api/admin/accounts/"+id+"/topups", adminToken, body, nil)
	}
	for name, body := range map[string]map[string]any{
		"credits past the bound": {"credits": maxCredits + 1, "idempotency_key": "a"},
		"credits past int64":     {"credits": "9223372036854775808", "idempotency_key": "b"},
		"rubles past the bound":  {"rubles": "10000000000.00001", "idempotency_key": "c"},
	} {
		if st := topUp(body); st != 400 {
			t.Errorf("%s: %d, want 400", name, st)
		}
	}
	if st := topUp(map[string]any{"credits": 600_000_000_000_000, "idempotency_key": "d"}); st != 200 {
		t.Fatalf("a top-up under the bound: %d", st)
	}
	if st := topUp(map[string]any{"credits": 600_000_000_000_000, "idempotency_key": "e"}); st != 400 {
		t.Errorf("a top-up taking the balance past the bound: %d, want 400", st)
	}
	if b := balance(t, h.base, key).Data; b.BoughtCredits != 600_000_000_000_000 {
		t.Errorf("balance %+v after a refused top-up", b)
	}
	if st := call(t, h.base, "POST", "/api/admin/accounts/"+id+"/keys", adminToken, map[string]any{"name": "k", "limit": maxCredits + 1}, nil); st != 400 {
		t.Errorf("a key ceiling past the bound: %d, want 400", st)
	}
	for _, body := range []map[string]any{{"rate": "1000000000000"}, {"K": "1001"}, {"rate": "-1"}} {
		if st := call(t, h.base, "PUT", "/api/admin/pricing", adminToken, body, nil); st != 400 {
			t.Errorf("pricing %v: %d, want 400", body, st)
		}
	}

	// Large balances and ceilings serve calls (the affordable tokens once overflowed at 10^13).
	_, rich := account(t, h.base, 10_000_000_000_000, map[string]any{"name": "rich", "limit": 10_000_000_000_000})
	resp := postChat(t, h.base, rich, chatBody("test/model", false, 0))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a call from a balance and ceiling of 10^13 credits: %d", resp.StatusCode)
	}
}

// TestRefundTakesBackOnlyWhatRemains: a refund after the credits were spent
// takes back what remains, never driving the balance below zero, and a
// replay of the same refund changes nothing.
func TestRefundTakesBackOnlyWhatRemains(t *testing.T) {
	id, key := account(t, h.base, 1_000_000, nil)
	resp := postChat(t, h.base, key, chatBody("test/model", false, 0))
	resp.Body.Close()
	left := balance(t, h.base, key).Data.BoughtCredits
	if resp.StatusCode != 200 || left >= 1_000_000 || left <= 0 {
		t.Fatalf("%d, left %d", resp.StatusCode, left)
	}
	for range 2 { // the same refund twice
		b, _, err := h.in.gw.Refund(id, 0, -1_000_000, "r-1")
		if err != nil {
			t.Fatal(err)
		}
		if b.BoughtCredits != 0 {
			t.Errorf("after refunding more than remains: %d bought credits, want 0", b.BoughtCredits)
		}
	}
	if v := balance(t, h.base, key).Data; v.BoughtCredits != 0 || v.TotalCredits != 0 {
		t.Errorf("balance %+v", v)
	}
	if bad, err := h.in.store.Reconcile(context.Background()); err != nil || len(bad) != 0 {
		t.Errorf("reconcile: %v %v", bad, err)
	}
}
