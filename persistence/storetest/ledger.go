package storetest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

func topUp(id, account string, amount shlyuz.Credits, epoch int64) shlyuz.LedgerEntry {
	return shlyuz.LedgerEntry{ID: id, AccountID: account, Kind: shlyuz.EntryTopUp, BoughtDelta: amount, Epoch: epoch, CreatedAt: at(time.Minute)}
}

func grant(id, account string, amount shlyuz.Credits, expires time.Time, epoch int64) shlyuz.LedgerEntry {
	return shlyuz.LedgerEntry{ID: id, AccountID: account, Kind: shlyuz.EntryPackageGranted, PackageDelta: amount,
		PackageExpiresAt: expires, Epoch: epoch, CreatedAt: at(2 * time.Minute)}
}

func charge(id, account string, pkg, bought shlyuz.Credits, epoch int64) shlyuz.LedgerEntry {
	return shlyuz.LedgerEntry{ID: id, AccountID: account, KeyID: "key-1", Kind: shlyuz.EntryCharge,
		PackageDelta: -pkg, BoughtDelta: -bought, Epoch: epoch, CreatedAt: at(3 * time.Minute)}
}

func testClaimBalance(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")
	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("t1", "acct-1", 500, 0)}})
	for want := int64(1); want <= 3; want++ {
		b, err := s.ClaimBalance(ctx, "acct-1")
		if err != nil {
			t.Fatalf("ClaimBalance: %v", err)
		}
		if b.Epoch != want || b.BoughtCredits != 500 || b.AccountID != "acct-1" {
			t.Errorf("ClaimBalance = %+v; want epoch %d with the balance", b, want)
		}
		wantBalance(t, s, "acct-1", 0, 500, want)
	}
	wantBalance(t, s, "acct-2", 0, 0, 0) // untouched
}

func testCommitAppliesDeltas(t *testing.T, s shlyuz.Store) {
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")
	expires := at(30 * 24 * time.Hour)
	entries := []shlyuz.LedgerEntry{
		topUp("t1", "acct-1", 1_000_000, 0),
		grant("g1", "acct-1", 300_000, expires, 0),
		charge("c1", "acct-1", 1_200, 34, 0),
		topUp("t2", "acct-2", 42, 0),
		{ID: "a1", AccountID: "acct-2", Kind: shlyuz.EntryAdjustment, BoughtDelta: -2, PackageDelta: 5, CreatedAt: at(time.Hour)},
	}
	res := mustCommit(t, s, shlyuz.Batch{Entries: entries})
	wantResult(t, res, []string{"t1", "g1", "c1", "t2", "a1"}, nil, nil)
	b := wantBalance(t, s, "acct-1", 300_000-1_200, 1_000_000-34, 0)
	if !b.PackageExpiresAt.Equal(norm(expires)) || b.PackageExpiresAt.Location() != time.UTC {
		t.Errorf("PackageExpiresAt = %v; want %v", b.PackageExpiresAt, norm(expires))
	}
	wantBalance(t, s, "acct-2", 5, 40, 0)
	for _, e := range entries {
		wantEntry(t, s, e)
	}
	wantReconciled(t, s)

	if res := mustCommit(t, s, shlyuz.Batch{}); len(res.Applied)+len(res.Duplicate)+len(res.Fenced) != 0 {
		t.Errorf("an empty batch gave %+v", res)
	}
}

func testCommitReplay(t *testing.T, s shlyuz.Store) {
	mustAccount(t, s, "acct-1")
	batch := shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("t1", "acct-1", 1000, 0), charge("c1", "acct-1", 0, 10, 0)}}
	wantResult(t, mustCommit(t, s, batch), []string{"t1", "c1"}, nil, nil)
	wantBalance(t, s, "acct-1", 0, 990, 0)

	// The same batch again, then a batch holding one id twice: nothing changes twice.
	wantResult(t, mustCommit(t, s, batch), nil, []string{"t1", "c1"}, nil)
	wantBalance(t, s, "acct-1", 0, 990, 0)
	twice := shlyuz.Batch{Entries: []shlyuz.LedgerEntry{charge("c2", "acct-1", 0, 5, 0), charge("c2", "acct-1", 0, 5, 0), charge("c1", "acct-1", 0, 10, 0)}}
	wantResult(t, mustCommit(t, s, twice), []string{"c2"}, []string{"c2", "c1"}, nil)
	wantBalance(t, s, "acct-1", 0, 985, 0)

	// A replay that differs from the stored entry still changes nothing.
	changed := charge("c1", "acct-1", 0, 999, 0)
	wantResult(t, mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{changed}}), nil, []string{"c1"}, nil)
	wantBalance(t, s, "acct-1", 0, 985, 0)
	wantEntry(t, s, charge("c1", "acct-1", 0, 10, 0))
	wantReconciled(t, s)
}

func testCommitFencing(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("t1", "acct-1", 1000, 1)}}) // epoch 1 > 0: applied
	for range 2 {
		if _, err := s.ClaimBalance(ctx, "acct-1"); err != nil {
			t.Fatalf("ClaimBalance: %v", err)
		}
	}
	wantBalance(t, s, "acct-1", 0, 1000, 2)

	tests := []struct {
		name  string
		entry shlyuz.LedgerEntry
		want  string // applied, duplicate or fenced
	}{
		{"older epoch is fenced", charge("c-old", "acct-1", 0, 100, 1), "fenced"},
		{"current epoch is applied", charge("c-cur", "acct-1", 0, 10, 2), "applied"},
		{"epoch 0 is unfenced", charge("c-zero", "acct-1", 0, 1, 0), "applied"},
		{"newer epoch is applied", charge("c-new", "acct-1", 0, 2, 3), "applied"},
		{"an existing id with an older epoch is a duplicate", charge("c-cur", "acct-1", 0, 10, 1), "duplicate"},
		{"an existing id from before the claim is a duplicate", topUp("t1", "acct-1", 1000, 1), "duplicate"},
		{"a fenced entry stays fenced on replay", charge("c-old", "acct-1", 0, 100, 1), "fenced"},
	}
	bought := shlyuz.Credits(1000)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{tc.entry}})
			id := []string{tc.entry.ID}
			switch tc.want {
			case "applied":
				wantResult(t, res, id, nil, nil)
				bought += tc.entry.BoughtDelta
			case "duplicate":
				wantResult(t, res, nil, id, nil)
			case "fenced":
				wantResult(t, res, nil, nil, id)
				_, err := s.Entry(ctx, tc.entry.ID)
				wantNoRows(t, "Entry of a fenced entry", err)
			}
			wantBalance(t, s, "acct-1", 0, bought, 2)
		})
	}

	// One batch mixing all three outcomes keeps the batch's order within each list.
	mixed := []shlyuz.LedgerEntry{
		charge("m1", "acct-1", 0, 1, 2), charge("m2", "acct-1", 0, 1, 1), charge("c-cur", "acct-1", 0, 10, 2),
		charge("m3", "acct-1", 0, 1, 0), charge("m4", "acct-1", 0, 1, 1),
	}
	wantResult(t, mustCommit(t, s, shlyuz.Batch{Entries: mixed}), []string{"m1", "m3"}, []string{"c-cur"}, []string{"m2", "m4"})
	wantBalance(t, s, "acct-1", 0, bought-2, 2)
	wantReconciled(t, s)
}

func testPackageExpiry(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	wantExpiry := func(want time.Time) {
		t.Helper()
		b := mustBalance(t, s, "acct-1")
		if !b.PackageExpiresAt.Equal(norm(want)) {
			t.Errorf("PackageExpiresAt = %v; want %v", b.PackageExpiresAt, norm(want))
		}
	}
	first, second, third := at(24*time.Hour), at(48*time.Hour), at(72*time.Hour)

	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{grant("g1", "acct-1", 1000, first, 0)}})
	wantExpiry(first)
	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{charge("c1", "acct-1", 10, 0, 0)}}) // no expiry: unchanged
	wantExpiry(first)

	// Within one batch the last grant wins.
	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{
		{ID: "x1", AccountID: "acct-1", Kind: shlyuz.EntryPackageExpired, PackageDelta: -990, CreatedAt: at(25 * time.Hour)},
		grant("g2", "acct-1", 2000, third, 0),
		grant("g3", "acct-1", 0, second, 0),
	}})
	wantExpiry(second)
	wantBalance(t, s, "acct-1", 2000, 0, 0)

	// A fenced grant and a replayed grant change nothing.
	if _, err := s.ClaimBalance(ctx, "acct-1"); err != nil {
		t.Fatalf("ClaimBalance: %v", err)
	}
	if _, err := s.ClaimBalance(ctx, "acct-1"); err != nil {
		t.Fatalf("ClaimBalance: %v", err)
	}
	res := mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{grant("g4", "acct-1", 5, third, 1), grant("g2", "acct-1", 2000, third, 2)}})
	wantResult(t, res, nil, []string{"g2"}, []string{"g4"})
	wantExpiry(second)
	wantBalance(t, s, "acct-1", 2000, 0, 2)
	wantReconciled(t, s)
}

func testCommitUnknownAccount(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	batch := shlyuz.Batch{
		Entries:     []shlyuz.LedgerEntry{topUp("t1", "acct-1", 100, 0), topUp("t2", "ghost", 100, 0)},
		Generations: []shlyuz.Generation{generation("gen-1", "acct-1")},
	}
	if res, err := s.Commit(ctx, batch); err == nil {
		t.Fatalf("Commit with an unknown account = %+v, nil; want an error", res)
	}
	_, err := s.Entry(ctx, "t1")
	wantNoRows(t, "Entry(t1) of a failed batch", err)
	_, err = s.Generation(ctx, "gen-1")
	wantNoRows(t, "Generation(gen-1) of a failed batch", err)
	wantBalance(t, s, "acct-1", 0, 0, 0)
	_, err = s.Account(ctx, "ghost")
	wantNoRows(t, "Account(ghost)", err)

	// The store still works, and the same ids may be written later.
	wantResult(t, mustCommit(t, s, shlyuz.Batch{Entries: batch.Entries[:1], Generations: batch.Generations}), []string{"t1"}, nil, nil)
	wantBalance(t, s, "acct-1", 0, 100, 0)
}

func testCommitRefusesMalformed(t *testing.T, s shlyuz.Store) {
	mustAccount(t, s, "acct-1")
	tests := []struct {
		name  string
		batch shlyuz.Batch
	}{
		{"entry without id", shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("", "acct-1", 1, 0)}}},
		{"entry without account", shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("t1", "", 1, 0)}}},
		{"generation without id", shlyuz.Batch{Generations: []shlyuz.Generation{generation("", "acct-1")}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Commit(t.Context(), tc.batch); err == nil {
				t.Error("Commit succeeded")
			}
		})
	}
	wantBalance(t, s, "acct-1", 0, 0, 0)
}

// testReconcileAfterManyCommits commits random batches (top-ups, grants,
// charges, adjustments, replays) to a few accounts and checks every balance
// against a model built with shlyuz.Balance.Apply.
func testReconcileAfterManyCommits(t *testing.T, s shlyuz.Store) {
	rng := rand.New(rand.NewPCG(20260314, 1))
	accounts := []string{"acct-a", "acct-b", "acct-c", "acct-d"}
	model := map[string]*shlyuz.Balance{}
	for _, id := range accounts {
		mustAccount(t, s, id)
		model[id] = &shlyuz.Balance{AccountID: id}
	}
	var committed []shlyuz.LedgerEntry
	seq := 0
	for round := range 40 {
		var batch shlyuz.Batch
		var wantApplied, wantDup []string
		for range 1 + rng.IntN(8) {
			if len(committed) > 0 && rng.IntN(5) == 0 {
				e := committed[rng.IntN(len(committed))]
				batch.Entries = append(batch.Entries, e)
				wantDup = append(wantDup, e.ID)
				continue
			}
			seq++
			acct := accounts[rng.IntN(len(accounts))]
			id := fmt.Sprintf("e-%04d", seq)
			var e shlyuz.LedgerEntry
			switch rng.IntN(4) {
			case 0:
				e = topUp(id, acct, shlyuz.Credits(1+rng.IntN(1_000_000)), 0)
			case 1:
				e = grant(id, acct, shlyuz.Credits(rng.IntN(500_000)), at(time.Duration(1+rng.IntN(1000))*time.Hour), 0)
			case 2:
				e = charge(id, acct, shlyuz.Credits(rng.IntN(5000)), shlyuz.Credits(rng.IntN(5000)), 0)
			default:
				e = shlyuz.LedgerEntry{ID: id, AccountID: acct, Kind: shlyuz.EntryAdjustment,
					PackageDelta: shlyuz.Credits(rng.IntN(2001) - 1000), BoughtDelta: shlyuz.Credits(rng.IntN(2001) - 1000), CreatedAt: at(time.Duration(round) * time.Second)}
			}
			batch.Entries = append(batch.Entries, e)
			wantApplied = append(wantApplied, id)
			model[acct].Apply(&e)
			committed = append(committed, e)
		}
		res := mustCommit(t, s, batch)
		if !sameIDs(res.Applied, wantApplied) || len(res.Duplicate) != len(wantDup) || len(res.Fenced) != 0 {
			t.Fatalf("round %d: CommitResult = %+v; want applied %v, duplicate %v", round, res, wantApplied, wantDup)
		}
	}
	for _, id := range accounts {
		want := model[id]
		b := wantBalance(t, s, id, want.PackageCredits, want.BoughtCredits, 0)
		if !b.PackageExpiresAt.Equal(norm(want.PackageExpiresAt)) {
			t.Errorf("Balance(%s).PackageExpiresAt = %v; want %v", id, b.PackageExpiresAt, norm(want.PackageExpiresAt))
		}
	}
	wantReconciled(t, s)
	for _, e := range committed[:10] {
		wantEntry(t, s, e)
	}
}
