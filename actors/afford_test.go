package actors_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz/actors"
)

// agentCall is a chat of text/model asking for far more completion than a
// small ceiling affords, as a coding agent does.
func agentCall(hash, id string) *actors.ChatCall { return textCall(hash, id, 1_000_000) }

// A call reserved on a node that holds slices of its key lowers its cap as
// the account's owner does: the same cap for the same ceiling. Many such
// calls at once, between small calls that reserve from the node's slice,
// never spend past the ceiling, each served or refused with the key's error
// (never the balance's, which is plenty): a slice serves a call only for
// its whole worst case, and a lowered one is the owner's to decide.
func TestSlicedCallsLowerTheCapAsTheOwnerDoes(t *testing.T) {
	tg := mediaGateway()
	const ceiling, credits = 200_000, 10_000_000
	run := time.Now().UnixNano() // accounts of their own, when the test runs again
	owner := tg.account(fmt.Sprintf("acc-afford-owner-%d", run), credits, ceiling)
	_, r, err := tg.Complete(context.Background(), agentCall(owner, fmt.Sprintf("gen-afford-owner-%d", run)))
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxTokens <= 0 || r.MaxTokens >= 1_000_000 {
		t.Fatalf("the owner decided max_tokens %d, want it lowered", r.MaxTokens)
	}

	actors.SetSlicesHere(tg.Gateway, true)
	t.Cleanup(func() { actors.SetSlicesHere(tg.Gateway, false) })
	slicedID := fmt.Sprintf("acc-afford-sliced-%d", run)
	sliced := tg.account(slicedID, credits, ceiling)
	_, rs, err := tg.Complete(context.Background(), agentCall(sliced, fmt.Sprintf("gen-afford-sliced-%d", run)))
	if err != nil {
		t.Fatal(err)
	}
	if rs.MaxTokens != r.MaxTokens {
		t.Fatalf("sliced: max_tokens %d, the owner's %d", rs.MaxTokens, r.MaxTokens)
	}

	slicedBefore, _ := actors.SliceReservations(tg.Gateway)
	tally := ceilingTally{spent: rs.Credits}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				c := agentCall(sliced, fmt.Sprintf("gen-afford-%d-%d-%d", run, w, i))
				if i%2 == 1 {
					c = sliceCall(sliced, c.GenerationID)
				}
				_, r, err := tg.Complete(context.Background(), c)
				if tally.add(t, w, i, r, err) && i%2 == 0 && (r.MaxTokens <= 0 || r.MaxTokens > rs.MaxTokens) {
					t.Errorf("call %d/%d: max_tokens %d, at most %d left", w, i, r.MaxTokens, rs.MaxTokens)
				}
			}
		}()
	}
	wg.Wait()
	ok, refused, spent := tally.ok, tally.refused, tally.spent
	if spent > ceiling || ok == 0 {
		t.Fatalf("%d calls spent %d of a %d ceiling, %d refused", ok, spent, ceiling, refused)
	}
	if after, _ := actors.SliceReservations(tg.Gateway); after == slicedBefore {
		t.Fatal("no small call reserved from a slice")
	}
	waitReleased(t, tg, slicedID)
	assertSpent(t, tg, sliced, slicedID, spent, credits-spent)
}
