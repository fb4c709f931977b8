package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// testCommitManyRows commits batches of hundreds of entries and generations,
// more than a store may write in one statement, and checks that each entry is
// still judged in the batch's order: an id repeated next to itself or far
// from it, replays of committed entries strewn among new ones, fenced
// entries (one of them a replay, one of them followed by the same id at the
// current epoch), package grants whose expiry the last applied one sets, and
// generations recorded twice in the batch, where the later record wins.
func testCommitManyRows(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	accounts := []string{"acct-1", "acct-2"}
	model := map[string]*shlyuz.Balance{}
	for _, id := range accounts {
		mustAccount(t, s, id)
		model[id] = &shlyuz.Balance{AccountID: id}
	}
	apply := func(entries ...shlyuz.LedgerEntry) {
		for i := range entries {
			model[entries[i].AccountID].Apply(&entries[i])
		}
	}

	// The first batch: a top-up of each account, 150 charges and their generations.
	first := shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("t1", "acct-1", 1_000_000, 0), topUp("t2", "acct-2", 1_000_000, 0)}}
	var old []shlyuz.LedgerEntry
	for i := range 150 {
		e := charge(fmt.Sprintf("old-%03d", i), accounts[i%2], shlyuz.Credits(i%3), shlyuz.Credits(i+1), 0)
		old = append(old, e)
		first.Generations = append(first.Generations, manyGeneration(fmt.Sprintf("g-old-%03d", i), accounts[i%2], i))
	}
	first.Entries = append(first.Entries, old...)
	var ids []string
	for _, e := range first.Entries {
		ids = append(ids, e.ID)
	}
	wantResult(t, mustCommit(t, s, first), ids, nil, nil)
	apply(first.Entries...)

	// acct-2 is claimed twice: its entries at epoch 1 are fenced from now on.
	for range 2 {
		if _, err := s.ClaimBalance(ctx, "acct-2"); err != nil {
			t.Fatalf("ClaimBalance: %v", err)
		}
	}

	// The second batch, entry by entry with what the contract makes of it.
	var second shlyuz.Batch
	var applied, duplicate, fenced []string
	add := func(e shlyuz.LedgerEntry, outcome string) {
		second.Entries = append(second.Entries, e)
		switch outcome {
		case "applied":
			applied = append(applied, e.ID)
			apply(e)
		case "duplicate":
			duplicate = append(duplicate, e.ID)
		case "fenced":
			fenced = append(fenced, e.ID)
		}
	}
	repA := charge("rep-a", "acct-1", 0, 7, 0)
	repB := charge("rep-b", "acct-2", 0, 11, 2)
	for i := range 400 {
		acct := accounts[i%2]
		switch {
		case i == 7:
			add(repA, "applied")
		case i == 8: // the same id at once, with other deltas
			add(charge("rep-a", "acct-1", 0, 70, 0), "duplicate")
		case i == 20:
			add(repB, "applied")
		case i == 390: // the same id far on
			add(charge("rep-b", "acct-2", 5, 5, 2), "duplicate")
		case i == 55: // a fenced replay
			add(charge(old[1].ID, old[1].AccountID, 0, old[1].BoughtDelta, 1), "duplicate")
		case i == 65: // fenced, and the same id at the current epoch further on
			add(charge("fz", "acct-2", 0, 13, 1), "fenced")
		case i == 300:
			add(charge("fz", "acct-2", 0, 17, 2), "applied")
		case i == 31: // a package whose expiry a later grant replaces
			add(grant("pkg-a", "acct-2", 500, at(48*time.Hour), 2), "applied")
		case i == 41: // a fenced grant sets no expiry
			add(grant("pkg-fenced", "acct-2", 700, at(96*time.Hour), 1), "fenced")
		case i == 351: // the last applied grant's expiry stands, though it is sooner
			add(grant("pkg-b", "acct-2", 300, at(24*time.Hour), 2), "applied")
		case i%10 == 3: // a replay of a committed entry, unchanged or not
			e := old[(i/10)%len(old)]
			if i%20 == 3 {
				e.BoughtDelta++
			}
			add(e, "duplicate")
		case i%10 == 5:
			add(charge(fmt.Sprintf("fen-%03d", i), "acct-2", 0, 1, 1), "fenced")
		default:
			add(charge(fmt.Sprintf("new-%03d", i), acct, shlyuz.Credits(i%4), shlyuz.Credits(i%7), int64(2*(i%2))), "applied")
		}
	}
	gens := map[string]shlyuz.Generation{} // the last record of each id
	record := func(g shlyuz.Generation) {
		second.Generations = append(second.Generations, g)
		gens[g.ID] = g
	}
	for i := range 300 {
		record(manyGeneration(fmt.Sprintf("g-%03d", i), accounts[i%2], i))
		switch i {
		case 100: // again at once
			record(manyGeneration("g-100", "acct-1", 1000))
		case 250: // g-005 again far on, and a generation of the first batch replaced
			record(manyGeneration("g-005", "acct-2", 1005))
			record(manyGeneration("g-old-010", "acct-1", 1010))
		}
	}
	wantResult(t, mustCommit(t, s, second), applied, duplicate, fenced)
	for _, id := range accounts {
		b := wantBalance(t, s, id, model[id].PackageCredits, model[id].BoughtCredits, map[string]int64{"acct-1": 0, "acct-2": 2}[id])
		if !b.PackageExpiresAt.Equal(norm(model[id].PackageExpiresAt)) {
			t.Errorf("Balance(%s).PackageExpiresAt = %v; want %v", id, b.PackageExpiresAt, norm(model[id].PackageExpiresAt))
		}
	}
	for _, e := range []shlyuz.LedgerEntry{repA, repB, charge("fz", "acct-2", 0, 17, 2), old[1], old[0], second.Entries[399]} {
		wantEntry(t, s, e)
	}
	for _, id := range []string{"fen-005", "fen-395"} {
		_, err := s.Entry(ctx, id)
		wantNoRows(t, "Entry of a fenced entry", err)
	}
	for _, id := range []string{"g-000", "g-005", "g-100", "g-101", "g-299", "g-old-010"} {
		wantGeneration(t, s, gens[id])
	}
	wantGeneration(t, s, first.Generations[11])
	wantReconciled(t, s)

	// The same batch again: every entry it applied is a duplicate now, fz
	// too where it was fenced; the others stay fenced.
	var again []string
	for _, e := range second.Entries {
		if e.ID == "fz" || !slices.Contains(fenced, e.ID) {
			again = append(again, e.ID)
		}
	}
	var stillFenced []string
	for _, id := range fenced {
		if id != "fz" {
			stillFenced = append(stillFenced, id)
		}
	}
	wantResult(t, mustCommit(t, s, second), nil, again, stillFenced)
	wantBalance(t, s, "acct-1", model["acct-1"].PackageCredits, model["acct-1"].BoughtCredits, 0)
	wantBalance(t, s, "acct-2", model["acct-2"].PackageCredits, model["acct-2"].BoughtCredits, 2)
	wantReconciled(t, s)
}

// manyGeneration is a generation record whose fields all depend on n.
func manyGeneration(id, account string, n int) shlyuz.Generation {
	return shlyuz.Generation{ID: id, AccountID: account, KeyID: fmt.Sprintf("key-%d", n%3), Model: fmt.Sprintf("m/%d", n%5),
		Upstream: "up", Attempts: []shlyuz.Attempt{{Upstream: "up", Status: 200 + n%2}}, Streamed: n%2 == 0,
		PromptTokens: int64(n), CompletionTokens: int64(2 * n), Credits: shlyuz.Credits(3 * n), LatencyMS: int64(n % 97),
		Status: shlyuz.GenerationCompleted, FinishReason: "stop", CreatedAt: at(time.Duration(n) * time.Millisecond),
		Estimated: n%3 == 0, CreditsDetails: &shlyuz.CreditsDetails{Input: shlyuz.Credits(n), Output: shlyuz.Credits(2 * n)}}
}
