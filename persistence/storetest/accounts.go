package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

func testAccount(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	want := mustAccount(t, s, "acct-1")
	got, err := s.Account(ctx, "acct-1")
	if err != nil {
		t.Fatalf("Account: %v", err)
	}
	if got.ID != want.ID || got.Email != want.Email || !got.CreatedAt.Equal(norm(want.CreatedAt)) || got.CreatedAt.Location() != time.UTC {
		t.Errorf("Account = %+v; want %+v in UTC microseconds", got, want)
	}
	b := wantBalance(t, s, "acct-1", 0, 0, 0)
	if !b.PackageExpiresAt.IsZero() {
		t.Errorf("new balance expires at %v; want the zero time", b.PackageExpiresAt)
	}

	_, err = s.Account(ctx, "nobody")
	wantNoRows(t, "Account(nobody)", err)
	_, err = s.Balance(ctx, "nobody")
	wantNoRows(t, "Balance(nobody)", err)
	_, err = s.ClaimBalance(ctx, "nobody")
	wantNoRows(t, "ClaimBalance(nobody)", err)
	_, err = s.Entry(ctx, "nothing")
	wantNoRows(t, "Entry(nothing)", err)
	_, err = s.Generation(ctx, "nothing")
	wantNoRows(t, "Generation(nothing)", err)
}

func testAccountDuplicates(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	tests := []struct {
		name string
		a    shlyuz.Account
	}{
		{"taken email", shlyuz.Account{ID: "acct-2", Email: "acct-1@example.com", CreatedAt: at(time.Hour)}},
		{"taken id", shlyuz.Account{ID: "acct-1", Email: "other@example.com", CreatedAt: at(time.Hour)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.CreateAccount(ctx, tc.a)
			if !errors.Is(err, shlyuz.ErrDuplicate) {
				t.Fatalf("CreateAccount: error %v; want shlyuz.ErrDuplicate", err)
			}
			got, err := s.Account(ctx, "acct-1")
			if err != nil || got.Email != "acct-1@example.com" {
				t.Errorf("the first account changed: %+v, %v", got, err)
			}
		})
	}
	_, err := s.Account(ctx, "acct-2")
	wantNoRows(t, "Account(acct-2) after a refused create", err)
	_, err = s.Balance(ctx, "acct-2")
	wantNoRows(t, "Balance(acct-2) after a refused create", err)
}

// keyString shows every stored field of a key, pointers dereferenced.
func keyString(k shlyuz.Key) string {
	deref := func(t *time.Time) string {
		if t == nil {
			return "nil"
		}
		return t.Format(time.RFC3339Nano) + "@" + t.Location().String()
	}
	limit := "nil"
	if k.Limit != nil {
		limit = fmt.Sprint(*k.Limit)
	}
	rate := "nil"
	if k.RateLimit != nil {
		rate = fmt.Sprintf("%+v", *k.RateLimit)
	}
	return fmt.Sprintf("id=%s account=%s name=%q hash=%s label=%s limit=%s reset=%q expires=%s revoked=%s created=%s rate=%s management=%v allowed=%q web_chat=%v disabled=%v updated=%s",
		k.ID, k.AccountID, k.Name, k.Hash, k.Label, limit, k.LimitReset,
		deref(k.ExpiresAt), deref(k.RevokedAt), deref(&k.CreatedAt), rate, k.Management, k.AllowedModels, k.WebChat, k.Disabled, deref(k.UpdatedAt))
}

func normKey(k shlyuz.Key) shlyuz.Key {
	k.ExpiresAt = normPtr(k.ExpiresAt)
	k.RevokedAt = normPtr(k.RevokedAt)
	k.CreatedAt = norm(k.CreatedAt)
	k.UpdatedAt = normPtr(k.UpdatedAt)
	return k
}

// newKey makes a key record for the account as the http layer would.
func newKey(account, id string, created time.Time) (shlyuz.Key, string) {
	plain, hash := shlyuz.NewKeySecret()
	return shlyuz.Key{
		ID:        id,
		AccountID: account,
		Name:      "key " + id,
		Hash:      hash,
		Label:     shlyuz.MaskKey(plain),
		CreatedAt: created,
	}, plain
}

func testKeys(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")

	limited, _ := newKey("acct-1", "key-b", at(2*time.Second))
	limited.Limit = ptr(shlyuz.Credits(500_000))
	limited.LimitReset = shlyuz.ResetMonth
	limited.ExpiresAt = ptr(at(30 * 24 * time.Hour))
	limited.RateLimit = &shlyuz.RateLimit{RequestsPerMinute: 60, TokensPerMinute: 90_000}
	limited.AllowedModels = []string{"openai/gpt-4o", "anthropic/"}
	plain, _ := newKey("acct-1", "key-a", at(time.Second)) // older: listed first
	zero, _ := newKey("acct-1", "key-c", at(2*time.Second))
	zero.Limit = ptr(shlyuz.Credits(0)) // a zero ceiling is not "no ceiling"
	zero.Management = true
	other, _ := newKey("acct-2", "key-d", at(0))
	for _, k := range []shlyuz.Key{limited, plain, zero, other} {
		if err := s.CreateKey(ctx, k, 0); err != nil {
			t.Fatalf("CreateKey(%s): %v", k.ID, err)
		}
	}

	for _, want := range []shlyuz.Key{limited, plain, zero, other} {
		byHash, err := s.KeyByHash(ctx, want.Hash)
		if err != nil {
			t.Fatalf("KeyByHash(%s): %v", want.ID, err)
		}
		byID, err := s.Key(ctx, want.ID)
		if err != nil {
			t.Fatalf("Key(%s): %v", want.ID, err)
		}
		w := keyString(normKey(want))
		if g := keyString(byHash); g != w {
			t.Errorf("KeyByHash =\n  %s\nwant\n  %s", g, w)
		}
		if g := keyString(byID); g != w {
			t.Errorf("Key =\n  %s\nwant\n  %s", g, w)
		}
	}

	keys, err := s.KeysOf(ctx, "acct-1")
	if err != nil {
		t.Fatalf("KeysOf: %v", err)
	}
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	if !sameIDs(ids, []string{"key-a", "key-b", "key-c"}) {
		t.Errorf("KeysOf(acct-1) = %v; want [key-a key-b key-c] (oldest first, then by id)", ids)
	}
	if keys, err := s.KeysOf(ctx, "nobody"); err != nil || len(keys) != 0 {
		t.Errorf("KeysOf(nobody) = %v, %v; want none", keys, err)
	}
}

func testKeyErrors(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	first, _ := newKey("acct-1", "key-1", at(0))
	if err := s.CreateKey(ctx, first, 0); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	sameHash, _ := newKey("acct-1", "key-2", at(0))
	sameHash.Hash = first.Hash
	sameID, _ := newKey("acct-1", "key-1", at(0))
	orphan, _ := newKey("nobody", "key-3", at(0))

	tests := []struct {
		name string
		k    shlyuz.Key
		want error
	}{
		{"taken hash", sameHash, shlyuz.ErrDuplicate},
		{"taken id", sameID, shlyuz.ErrDuplicate},
		{"unknown account", orphan, shlyuz.ErrNoRows},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.CreateKey(ctx, tc.k, 0); !errors.Is(err, tc.want) {
				t.Errorf("CreateKey: error %v; want %v", err, tc.want)
			}
		})
	}
	_, err := s.KeyByHash(ctx, shlyuz.HashKey("sk-shz-v1-not-a-key"))
	wantNoRows(t, "KeyByHash(unknown)", err)
	_, err = s.Key(ctx, "key-2")
	wantNoRows(t, "Key(key-2)", err)
}

func testRevokeKey(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	k, _ := newKey("acct-1", "key-1", at(0))
	if err := s.CreateKey(ctx, k, 0); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	if err := s.RevokeKey(ctx, "key-1", at(time.Hour)); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	// Revoking again keeps the first instant.
	if err := s.RevokeKey(ctx, "key-1", at(2*time.Hour)); err != nil {
		t.Fatalf("RevokeKey again: %v", err)
	}
	got, err := s.KeyByHash(ctx, k.Hash)
	if err != nil {
		t.Fatalf("KeyByHash: %v", err)
	}
	if !got.Revoked() || !got.RevokedAt.Equal(norm(at(time.Hour))) {
		t.Errorf("RevokedAt = %v; want %v", got.RevokedAt, norm(at(time.Hour)))
	}
	if e := got.Usable(at(3 * time.Hour)); e == nil {
		t.Error("a revoked key is usable")
	}
	wantNoRows(t, "RevokeKey(unknown)", s.RevokeKey(ctx, "no-such-key", at(0)))
}

func testSetKeyLimit(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	k, _ := newKey("acct-1", "key-1", at(0))
	k.LimitReset = shlyuz.ResetMonth
	if err := s.CreateKey(ctx, k, 0); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	for _, want := range []*shlyuz.Credits{ptrCredits(500), ptrCredits(0), nil, ptrCredits(7)} {
		if err := s.SetKeyLimit(ctx, "key-1", want); err != nil {
			t.Fatalf("SetKeyLimit(%v): %v", want, err)
		}
		got, err := s.Key(ctx, "key-1")
		if err != nil {
			t.Fatalf("Key: %v", err)
		}
		if (got.Limit == nil) != (want == nil) || (want != nil && *got.Limit != *want) || got.LimitReset != shlyuz.ResetMonth {
			t.Errorf("after SetKeyLimit(%v): limit %v, reset %q", want, got.Limit, got.LimitReset)
		}
	}
	wantNoRows(t, "SetKeyLimit(unknown)", s.SetKeyLimit(ctx, "no-such-key", nil))
}

func ptrCredits(c shlyuz.Credits) *shlyuz.Credits { return &c }

func testKeySpend(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	charge := func(id, key string, pkg, bought shlyuz.Credits, when time.Time) shlyuz.LedgerEntry {
		return shlyuz.LedgerEntry{ID: id, AccountID: "acct-1", KeyID: key, Kind: shlyuz.EntryCharge,
			PackageDelta: -pkg, BoughtDelta: -bought, CreatedAt: when}
	}
	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{
		{ID: "top", AccountID: "acct-1", KeyID: "key-1", Kind: shlyuz.EntryTopUp, BoughtDelta: 1_000_000, CreatedAt: at(0)},
		charge("c1", "key-1", 100, 0, at(time.Hour)),
		charge("c2", "key-1", 30, 20, at(2*time.Hour)),
		charge("c3", "key-1", 0, 7, at(3*time.Hour+time.Microsecond)),
		charge("c4", "key-2", 1000, 0, at(2*time.Hour)),
		charge("c5", "", 0, 1000, at(2*time.Hour)),
		{ID: "adj", AccountID: "acct-1", KeyID: "key-1", Kind: shlyuz.EntryAdjustment, BoughtDelta: -5000, CreatedAt: at(2 * time.Hour)},
	}})
	tests := []struct {
		key   string
		since time.Time
		want  shlyuz.Credits
	}{
		{"key-1", time.Time{}, 157},
		{"key-1", at(time.Hour), 157},                   // inclusive
		{"key-1", at(time.Hour + time.Microsecond), 57}, // c1 is before
		{"key-1", at(2 * time.Hour), 57},
		{"key-1", at(3*time.Hour + time.Microsecond), 7},
		{"key-1", at(4 * time.Hour), 0},
		{"key-2", time.Time{}, 1000},
		{"key-3", time.Time{}, 0},
	}
	for _, tc := range tests {
		got, err := s.KeySpend(ctx, tc.key, tc.since)
		if err != nil {
			t.Fatalf("KeySpend(%s, %v): %v", tc.key, tc.since, err)
		}
		if got != tc.want {
			t.Errorf("KeySpend(%s, %v) = %d; want %d", tc.key, tc.since, got, tc.want)
		}
	}
}
