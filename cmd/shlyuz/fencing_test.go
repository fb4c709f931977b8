package main

import (
	"context"
	"testing"
	"time"
)

// An account actor that lost its claim (another activation raised the epoch)
// refuses to commit, stops, and the next request activates it afresh.
func TestAccountReactivatesAfterLosingItsClaim(t *testing.T) {
	accID, key := account(t, h.base, 1_000_000, nil)
	resp := postChat(t, h.base, key, chatBody("test/model", false, 0))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("chat %d", resp.StatusCode)
	}
	id := resp.Header.Get("X-Generation-Id")
	ctx := context.Background()
	waitFor(t, 10*time.Second, "the first charge to be committed", func() bool {
		_, err := h.in.store.Generation(ctx, id)
		return err == nil
	})
	if _, err := h.in.store.ClaimBalance(ctx, accID); err != nil { // as another node would
		t.Fatal(err)
	}
	var e apiError
	if st := call(t, h.base, "POST", "/api/admin/accounts/"+accID+"/topups", adminToken,
		map[string]any{"credits": 5, "idempotency_key": "after-claim"}, &e); st != 409 || e.Error.Code != "account_moved" {
		t.Fatalf("top-up by a fenced activation: %d %+v", st, e.Error)
	}
	stored, err := h.in.store.Balance(ctx, accID)
	if err != nil {
		t.Fatal(err)
	}
	// This reservation must find a fresh activation of the account.
	resp = postChat(t, h.base, key, chatBody("test/model", false, 0))
	var r chatReply
	_ = jsonDecode(resp.Body, &r)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("chat after the account's activation stopped: %d", resp.StatusCode)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; stored.BoughtCredits-after != r.Usage.Credits {
		t.Fatalf("debited %d, reported %d", stored.BoughtCredits-after, r.Usage.Credits)
	}
	if st := call(t, h.base, "POST", "/api/admin/accounts/"+accID+"/topups", adminToken,
		map[string]any{"credits": 5, "idempotency_key": "after-claim-2"}, nil); st != 200 {
		t.Fatalf("top-up after reactivation: %d", st)
	}
	assertReconciled(t, h.base)
}
