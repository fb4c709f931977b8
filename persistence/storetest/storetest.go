// Package storetest is the contract every shlyuz.Store passes. A store's own
// tests call Run with a function that opens a fresh, empty store, and
// RunReopen with one that can also open the same database again.
//
// Beyond the comments of shlyuz.Store, the contract pins down:
//   - lookups of missing rows and operations on unknown ids are
//     errors.Is(err, shlyuz.ErrNoRows); a taken email, id or key hash is
//     errors.Is(err, shlyuz.ErrDuplicate);
//   - instants come back in UTC, truncated to the microsecond;
//   - a commit judges each entry in order: an existing id is a duplicate, an
//     epoch (not 0) older than its account's is fenced, anything else is
//     applied (so an id an earlier entry of the batch wrote is a duplicate
//     too); an entry of an unknown account fails the whole batch; a
//     generation recorded twice keeps its later record;
//   - listings are sorted: plans and model overrides by id, keys oldest first;
//   - a full bounded collection (an account's conversations) is
//     errors.Is(err, shlyuz.ErrLimitReached).
package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// Run runs the contract suite. open must return a fresh, empty store and
// close it when the test ends.
func Run(t *testing.T, open func(t *testing.T) shlyuz.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s shlyuz.Store)
	}{
		{"Account", testAccount},
		{"AccountDuplicates", testAccountDuplicates},
		{"Keys", testKeys},
		{"KeyErrors", testKeyErrors},
		{"RevokeKey", testRevokeKey},
		{"SetKeyLimit", testSetKeyLimit},
		{"KeyCap", testKeyCap},
		{"APIKeysPaged", testAPIKeysPaged},
		{"WebChatKey", testWebChatKey},
		{"UpdateKey", testUpdateKey},
		{"KeySpend", testKeySpend},
		{"ClaimBalance", testClaimBalance},
		{"CommitAppliesDeltas", testCommitAppliesDeltas},
		{"CommitReplay", testCommitReplay},
		{"CommitFencing", testCommitFencing},
		{"PackageExpiry", testPackageExpiry},
		{"CommitUnknownAccount", testCommitUnknownAccount},
		{"CommitRefusesMalformed", testCommitRefusesMalformed},
		{"CommitManyRows", testCommitManyRows},
		{"CommitRepeatedIDs", testCommitRepeatedIDs},
		{"Generations", testGenerations},
		{"Settings", testSettings},
		{"ReplaceSettings", testReplaceSettings},
		{"Plans", testPlans},
		{"ModelOverrides", testModelOverrides},
		{"ReconcileAfterManyCommits", testReconcileAfterManyCommits},
		{"ConcurrentCommits", testConcurrentCommits},
		{"Membership", testMembership},
		{"LeaseGatedClaim", testLeaseGatedClaim},
		{"VideoJobs", testVideoJobs},
		{"WebLogins", testWebLogins},
		{"WebSessions", testWebSessions},
		{"Payments", testPayments},
		{"Activity", testActivity},
		{"RateChanges", testRateChanges},
		{"Conversations", testConversations},
		{"ConversationLimit", testConversationLimit},
		{"AccountSpend", testAccountSpend},
		{"ActivitySums", testActivitySums},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

// t0 is a base instant in a non-UTC zone with nanoseconds, so that every round
// trip shows the store's normalisation to UTC microseconds.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535_897_932, time.FixedZone("MSK", 3*60*60))

// at is t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// norm is what a store gives back for t.
func norm(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.Truncate(time.Microsecond).UTC()
}

func normPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	n := norm(*t)
	return &n
}

func ptr[T any](v T) *T { return &v }

func mustAccount(t *testing.T, s shlyuz.Store, id string) shlyuz.Account {
	t.Helper()
	a := shlyuz.Account{ID: id, Email: id + "@example.com", CreatedAt: at(0)}
	if err := s.CreateAccount(t.Context(), a); err != nil {
		t.Fatalf("CreateAccount(%s): %v", id, err)
	}
	return a
}

func mustCommit(t *testing.T, s shlyuz.Store, b shlyuz.Batch) shlyuz.CommitResult {
	t.Helper()
	res, err := s.Commit(t.Context(), b)
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return res
}

func mustBalance(t *testing.T, s shlyuz.Store, id string) shlyuz.Balance {
	t.Helper()
	b, err := s.Balance(t.Context(), id)
	if err != nil {
		t.Fatalf("Balance(%s): %v", id, err)
	}
	return b
}

// wantBalance checks the balance's credits and epoch.
func wantBalance(t *testing.T, s shlyuz.Store, id string, pkg, bought shlyuz.Credits, epoch int64) shlyuz.Balance {
	t.Helper()
	b := mustBalance(t, s, id)
	if b.AccountID != id || b.PackageCredits != pkg || b.BoughtCredits != bought || b.Epoch != epoch {
		t.Errorf("Balance(%s) = package %d, bought %d, epoch %d (account %q); want %d, %d, %d",
			id, b.PackageCredits, b.BoughtCredits, b.Epoch, b.AccountID, pkg, bought, epoch)
	}
	return b
}

func wantReconciled(t *testing.T, s shlyuz.Store) {
	t.Helper()
	ids, err := s.Reconcile(t.Context())
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if len(ids) != 0 {
		t.Errorf("Reconcile = %v; want no account whose balance differs from its entries", ids)
	}
}

func wantNoRows(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, shlyuz.ErrNoRows) {
		t.Errorf("%s: error %v; want shlyuz.ErrNoRows", what, err)
	}
}

// sameIDs compares id lists in order; nil and empty are the same.
func sameIDs(got, want []string) bool {
	return len(got) == len(want) && (len(got) == 0 || slices.Equal(got, want))
}

func wantResult(t *testing.T, got shlyuz.CommitResult, applied, duplicate, fenced []string) {
	t.Helper()
	if !sameIDs(got.Applied, applied) || !sameIDs(got.Duplicate, duplicate) || !sameIDs(got.Fenced, fenced) {
		t.Errorf("CommitResult = applied %v, duplicate %v, fenced %v; want %v, %v, %v",
			got.Applied, got.Duplicate, got.Fenced, applied, duplicate, fenced)
	}
}

// jsonOf renders v for comparison; decimals print exactly.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return string(b)
}

// normEntry is the entry as a store gives it back.
func normEntry(e shlyuz.LedgerEntry) shlyuz.LedgerEntry {
	e.CreatedAt = norm(e.CreatedAt)
	e.PackageExpiresAt = norm(e.PackageExpiresAt)
	return e
}

func wantEntry(t *testing.T, s shlyuz.Store, want shlyuz.LedgerEntry) {
	t.Helper()
	got, err := s.Entry(t.Context(), want.ID)
	if err != nil {
		t.Errorf("Entry(%s): %v", want.ID, err)
		return
	}
	if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", normEntry(want)); g != w {
		t.Errorf("Entry(%s) =\n  %s\nwant\n  %s", want.ID, g, w)
	}
}
