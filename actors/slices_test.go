package actors_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// sliceCall is a small chat of text/model (one upstream, priced ×5) with
// its completion capped, so that a call's worst case is a few credits.
func sliceCall(hash, id string) *actors.ChatCall {
	return &actors.ChatCall{GenerationID: id, KeyHash: hash, Models: []string{"text/model"}, MaxTokens: 10,
		Prompt: shlyuz.PromptEstimate{Reserve: 20, Likely: 10}, Started: time.Now()}
}

// Calls reserved from a node's slice of a key (issue 20) keep the key's
// ceiling and the balance exact: many calls at once on a small ceiling
// spend at most the ceiling, every credit a client was told is debited
// once, the calls did reserve from slices, and once the node is idle its
// slice goes back, leaving nothing reserved.
func TestSlicesKeepTheCeilingExact(t *testing.T) {
	tg := mediaGateway()
	actors.SetSlicesHere(tg.Gateway, true)
	t.Cleanup(func() { actors.SetSlicesHere(tg.Gateway, false) })
	const ceiling, credits = 150_000, 10_000_000
	hash := tg.account("acc-slices", credits, ceiling)
	before := actors.SliceReservations(tg.Gateway)

	var mu sync.Mutex
	var spent shlyuz.Credits
	ok, refused := 0, 0
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				_, r, err := tg.Complete(context.Background(), sliceCall(hash, fmt.Sprintf("gen-slices-%d-%d", w, i)))
				mu.Lock()
				var e *shlyuz.Error
				switch {
				case err == nil:
					ok++
					spent += r.Credits
				case errors.As(err, &e) && e.Code == "key_limit_exceeded":
					refused++
				default:
					t.Errorf("call %d/%d: %v", w, i, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if spent > ceiling || ok == 0 || refused == 0 {
		t.Fatalf("%d calls spent %d of a %d ceiling, %d refused", ok, spent, ceiling, refused)
	}
	if n := actors.SliceReservations(tg.Gateway) - before; n == 0 {
		t.Fatal("no call reserved from a slice")
	}
	t.Logf("%d calls spent %d of a %d ceiling, %d refused, %d reserved from a slice", ok, spent, ceiling, refused, actors.SliceReservations(tg.Gateway)-before)
	waitReleased(t, tg, "acc-slices")
	assertSpent(t, tg, hash, "acc-slices", spent, credits-spent)
}

// A revoked key's slice is recalled before the revocation is answered: the
// next call is refused, though the node held a slice a moment before.
func TestRevokingAKeyRecallsItsSlices(t *testing.T) {
	tg := mediaGateway()
	actors.SetSlicesHere(tg.Gateway, true)
	t.Cleanup(func() { actors.SetSlicesHere(tg.Gateway, false) })
	hash := tg.account("acc-slice-revoke", 1_000_000, 1_000_000)
	before := actors.SliceReservations(tg.Gateway)
	for i := range 3 { // the first asks for a slice, the next reserve from it
		if _, _, err := tg.Complete(context.Background(), sliceCall(hash, fmt.Sprintf("gen-slice-revoke-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if actors.SliceReservations(tg.Gateway)-before != 2 {
		t.Fatalf("%d calls reserved from a slice, want 2", actors.SliceReservations(tg.Gateway)-before)
	}
	if err := tg.RevokeKey(context.Background(), "key-acc-slice-revoke"); err != nil {
		t.Fatal(err)
	}
	_, _, err := tg.Complete(context.Background(), sliceCall(hash, "gen-slice-revoke-after"))
	var e *shlyuz.Error
	if !errors.As(err, &e) || e.Status != 401 {
		t.Fatalf("a call after the revocation: %v, want 401", err)
	}
	waitReleased(t, tg, "acc-slice-revoke")
}

// waitReleased waits until the account holds nothing: its slices came back.
func waitReleased(t *testing.T, tg *testGateway, account string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := tg.Balance(account)
		if err != nil {
			t.Fatal(err)
		}
		if b.Reserved == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d credits still reserved", b.Reserved)
		}
		time.Sleep(20 * time.Millisecond) // polling a gauge, not waiting for a guess
	}
}
