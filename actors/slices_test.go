package actors_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/tokens"
)

// textCall is a short chat of text/model (one upstream, priced ×5) asking
// for maxTokens of completion.
func textCall(hash, id string, maxTokens int64) *actors.ChatCall {
	return &actors.ChatCall{GenerationID: id, KeyHash: hash, Models: []string{"text/model"}, MaxTokens: maxTokens,
		Prompt: tokens.PromptEstimate{Reserve: 20, Likely: 10}, Started: time.Now()}
}

// sliceCall is a call with its completion capped, so that its worst case
// is a few credits.
func sliceCall(hash, id string) *actors.ChatCall { return textCall(hash, id, 10) }

// Calls reserved from a node's slice of a key keep the key's
// ceiling and the balance exact: many calls at once on a small ceiling
// spend at most the ceiling, every credit a client was told is debited
// once, the calls did reserve from slices, and once the node is idle its
// slice goes back, leaving nothing reserved. With durable settlement (the
// default) a slice also grows with settlements' acknowledgements.
func TestSlicesKeepTheCeilingExact(t *testing.T) {
	for _, durable := range []bool{false, true} {
		t.Run(fmt.Sprintf("durable=%v", durable), func(t *testing.T) {
			tg := mediaGateway()
			actors.SetSlicesHere(tg.Gateway, true)
			actors.SetDurable(tg.Gateway, durable)
			t.Cleanup(func() {
				actors.SetSlicesHere(tg.Gateway, false)
				actors.SetDurable(tg.Gateway, false)
			})
			slicesKeepTheCeilingExact(t, tg, fmt.Sprintf("acc-slices-%v", durable))
		})
	}
}

func slicesKeepTheCeilingExact(t *testing.T, tg *testGateway, account string) {
	const ceiling, credits = 150_000, 10_000_000
	hash := tg.account(account, credits, ceiling)
	slicedBefore, ownerBefore := actors.SliceReservations(tg.Gateway)

	var tally ceilingTally
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				_, r, err := tg.Complete(context.Background(), sliceCall(hash, fmt.Sprintf("gen-%s-%d-%d", account, w, i)))
				tally.add(t, w, i, r, err)
			}
		}()
	}
	wg.Wait()
	ok, refused, spent := tally.ok, tally.refused, tally.spent
	if spent > ceiling || ok == 0 || refused == 0 {
		t.Fatalf("%d calls spent %d of a %d ceiling, %d refused", ok, spent, ceiling, refused)
	}
	sliced, owner := actors.SliceReservations(tg.Gateway)
	if sliced == slicedBefore {
		t.Fatal("no call reserved from a slice")
	}
	t.Logf("%d calls spent %d of a %d ceiling, %d refused; %d reserved from a slice, %d at the owner",
		ok, spent, ceiling, refused, sliced-slicedBefore, owner-ownerBefore)
	waitReleased(t, tg, account)
	assertSpent(t, tg, hash, account, spent, credits-spent)
}

// ceilingTally counts the calls many goroutines make against a key's
// ceiling: those served and what they spent, and those refused with the
// key's error; any other error fails the test.
type ceilingTally struct {
	mu          sync.Mutex
	ok, refused int
	spent       shlyuz.Credits
}

// add counts call w/i's outcome and reports whether it was served.
func (c *ceilingTally) add(t *testing.T, w, i int, r *actors.Receipt, err error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	var e *shlyuz.Error
	switch {
	case err == nil:
		c.ok++
		c.spent += r.Credits
		return true
	case errors.As(err, &e) && e.Code == "key_limit_exceeded":
		c.refused++
	default:
		t.Errorf("call %d/%d: %v", w, i, err)
	}
	return false
}

// Under durable settlement (the default) a settlement's acknowledgement
// refills its slice, so that after the first calls (which asked the owner
// while no slice had come yet) hardly any call asks the owner again. Without
// refills a slice of 16 worst cases would serve 16 calls, and 200 calls
// would ask the owner at least 12 times; the bound is twice the workers,
// since on a loaded machine (a stall of a second returns an idle slice, a
// refill may come after the next call) a few more may ask it.
func TestSettlementsRefillSlices(t *testing.T) {
	tg := mediaGateway()
	actors.SetSlicesHere(tg.Gateway, true)
	actors.SetDurable(tg.Gateway, true)
	t.Cleanup(func() {
		actors.SetSlicesHere(tg.Gateway, false)
		actors.SetDurable(tg.Gateway, false)
	})
	const workers, calls = 4, 50 // 200 calls of 900 credits; a slice is asked for as 16 worst cases of 1,800
	hash := tg.account("acc-slice-refill", 10_000_000, 5_000_000)
	slicedBefore, ownerBefore := actors.SliceReservations(tg.Gateway)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				if _, _, err := tg.Complete(context.Background(), sliceCall(hash, fmt.Sprintf("gen-slice-refill-%d-%d", w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	sliced, owner := actors.SliceReservations(tg.Gateway)
	if owner-ownerBefore > 2*workers || sliced-slicedBefore+owner-ownerBefore != workers*calls {
		t.Fatalf("%d calls reserved from a slice, %d at the owner; want at most %d at the owner", sliced-slicedBefore, owner-ownerBefore, 2*workers)
	}
	waitReleased(t, tg, "acc-slice-refill")
}

// A key's slices are recalled before a change to the key is answered: the
// next call is refused, though the node held a slice of the key a moment
// before. A revocation says 401; a new ceiling of 0 stops the key.
func TestChangingAKeyRecallsItsSlices(t *testing.T) {
	tg := mediaGateway()
	actors.SetSlicesHere(tg.Gateway, true)
	t.Cleanup(func() { actors.SetSlicesHere(tg.Gateway, false) })
	for _, tc := range []struct {
		name   string
		change func(ctx context.Context, keyID string) *shlyuz.Error
		status int    // of the call after the change
		code   string // of the call after the change, when not ""
	}{
		{"revoke", tg.RevokeKey, 401, ""},
		{"limit", func(ctx context.Context, keyID string) *shlyuz.Error {
			zero := shlyuz.Credits(0)
			return tg.SetKeyLimit(ctx, keyID, &zero)
		}, 0, "key_limit_exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			account := "acc-slice-" + tc.name
			hash := tg.account(account, 1_000_000, 1_000_000)
			before, _ := actors.SliceReservations(tg.Gateway)
			for i := range 3 { // the first asks for a slice, the next reserve from it
				if _, _, err := tg.Complete(context.Background(), sliceCall(hash, fmt.Sprintf("gen-%s-%d", account, i))); err != nil {
					t.Fatal(err)
				}
			}
			if after, _ := actors.SliceReservations(tg.Gateway); after-before != 2 {
				t.Fatalf("%d calls reserved from a slice, want 2", after-before)
			}
			if err := tc.change(context.Background(), "key-"+account); err != nil {
				t.Fatal(err)
			}
			_, _, err := tg.Complete(context.Background(), sliceCall(hash, "gen-"+account+"-after"))
			var e *shlyuz.Error
			if !errors.As(err, &e) || (tc.status != 0 && e.Status != tc.status) || (tc.code != "" && e.Code != tc.code) {
				t.Fatalf("a call after the change: %v, want status %d code %q", err, tc.status, tc.code)
			}
			waitReleased(t, tg, account)
		})
	}
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

// A grant of more slice whose answer never reaches its node is taken back:
// the owner counted it in the node's slice, the node never did, so without
// the node's word it would stay reserved (spent by nobody) until the node
// left or the account moved. The node says so once it gives the answer up:
// a reservation's that timed out, or a settlement's whose every
// acknowledgement was lost; then, once its slice goes back idle, the account
// holds nothing.
func TestALostSliceGrantComesBack(t *testing.T) {
	tg := mediaGateway()
	actors.SetSlicesHere(tg.Gateway, true)
	actors.SetDurable(tg.Gateway, true)
	old := actors.SetTimeout(tg.Gateway, time.Second) // a settlement is given up after a second, not ten
	t.Cleanup(func() {
		tg.lossy.LoseReservations(false)
		tg.lossy.LoseRefills(false)
		actors.SetTimeout(tg.Gateway, old)
		actors.SetSlicesHere(tg.Gateway, false)
		actors.SetDurable(tg.Gateway, false)
	})
	for _, tc := range []struct {
		name string
		lose func(on bool)
	}{
		{"a reservation's answer", tg.lossy.LoseReservations},
		{"every acknowledgement of a refill", tg.lossy.LoseRefills},
	} {
		t.Run(tc.name, func(t *testing.T) {
			account := fmt.Sprintf("acc-slice-lost-%s-%d", strings.ReplaceAll(tc.name, " ", "-"), time.Now().UnixNano()) // -count safe
			hash := tg.account(account, 10_000_000, 5_000_000)
			lostBefore := tg.lossy.LostGrants()
			tc.lose(true)
			failed := 0
			for i := 0; i < 200 && tg.lossy.LostGrants() == lostBefore; i++ { // one call at a time, until a grant is lost
				if _, _, err := tg.Complete(context.Background(), sliceCall(hash, fmt.Sprintf("gen-%s-%d", account, i))); err != nil {
					failed++ // the call whose answer was lost: 503, or its charge not known to be committed
				}
			}
			tc.lose(false)
			if tg.lossy.LostGrants() == lostBefore || failed != 1 {
				t.Fatalf("%d grants lost, %d calls failed; want one of each", tg.lossy.LostGrants()-lostBefore, failed)
			}
			if _, _, err := tg.Complete(context.Background(), sliceCall(hash, "gen-"+account+"-after")); err != nil {
				t.Fatalf("a call after the lost answer: %v", err)
			}
			waitReleased(t, tg, account)
		})
	}
}
