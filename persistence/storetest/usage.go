package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// testAccountSpend: every charge of the account, whatever key, since an
// instant (inclusive); top-ups, adjustments and other accounts' charges are not spend.
func testAccountSpend(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")
	charge := func(id, acct, key string, pkg, bought shlyuz.Credits, when time.Time) shlyuz.LedgerEntry {
		return shlyuz.LedgerEntry{ID: id, AccountID: acct, KeyID: key, Kind: shlyuz.EntryCharge,
			PackageDelta: -pkg, BoughtDelta: -bought, CreatedAt: when}
	}
	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{
		{ID: "top", AccountID: "acct-1", Kind: shlyuz.EntryTopUp, BoughtDelta: 1_000_000, CreatedAt: at(0)},
		charge("c1", "acct-1", "key-1", 100, 0, at(time.Hour)),
		charge("c2", "acct-1", "key-2", 30, 20, at(2*time.Hour)),
		charge("c3", "acct-1", "", 0, 7, at(3*time.Hour)),
		charge("c4", "acct-2", "key-3", 1000, 0, at(2*time.Hour)),
		{ID: "adj", AccountID: "acct-1", Kind: shlyuz.EntryAdjustment, BoughtDelta: -5000, CreatedAt: at(2 * time.Hour)},
	}})
	for _, tc := range []struct {
		acct  string
		since time.Time
		want  shlyuz.Credits
	}{
		{"acct-1", time.Time{}, 157},
		{"acct-1", at(time.Hour), 157},
		{"acct-1", at(time.Hour + time.Microsecond), 57},
		{"acct-1", at(4 * time.Hour), 0},
		{"acct-2", time.Time{}, 1000},
		{"acct-3", time.Time{}, 0},
	} {
		got, err := s.AccountSpend(ctx, tc.acct, tc.since)
		if err != nil || got != tc.want {
			t.Errorf("AccountSpend(%s, %v) = %d, %v; want %d", tc.acct, tc.since, got, err, tc.want)
		}
	}
}

// testActivitySums: generations summed per UTC day, model and upstream,
// failed ones left out, oldest day first.
func testActivitySums(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	gen := func(id, model, status string, when time.Time, prompt, completion int64, credits shlyuz.Credits) shlyuz.Generation {
		return shlyuz.Generation{ID: id, AccountID: "acct-1", KeyID: "key-1", Model: model, Upstream: "up", Status: status,
			PromptTokens: prompt, CompletionTokens: completion, Credits: credits, CreatedAt: when}
	}
	mustCommit(t, s, shlyuz.Batch{Generations: []shlyuz.Generation{
		gen("g1", "a/m", shlyuz.GenerationCompleted, day.Add(time.Hour), 10, 5, 100),
		gen("g2", "a/m", shlyuz.GenerationCancelled, day.Add(23*time.Hour+59*time.Minute), 1, 2, 30),
		gen("g3", "a/m", shlyuz.GenerationFailed, day.Add(2*time.Hour), 7, 0, 0),
		gen("g4", "b/m", shlyuz.GenerationCompleted, day.Add(3*time.Hour), 4, 4, 40),
		gen("g5", "a/m", shlyuz.GenerationCompleted, day.Add(24*time.Hour), 3, 3, 33),
		gen("g6", "a/m", shlyuz.GenerationCompleted, day.Add(-time.Hour), 9, 9, 99),
	}})
	got, err := s.Activity(ctx, "acct-1", day)
	if err != nil {
		t.Fatal(err)
	}
	want := []shlyuz.ActivityRow{
		{Day: day, Model: "a/m", Upstream: "up", Requests: 2, PromptTokens: 11, CompletionTokens: 7, Credits: 130},
		{Day: day, Model: "b/m", Upstream: "up", Requests: 1, PromptTokens: 4, CompletionTokens: 4, Credits: 40},
		{Day: day.Add(24 * time.Hour), Model: "a/m", Upstream: "up", Requests: 1, PromptTokens: 3, CompletionTokens: 3, Credits: 33},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Activity:\n got %+v\nwant %+v", got, want)
	}
}
