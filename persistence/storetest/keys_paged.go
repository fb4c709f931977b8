package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// testKeyCap: CreateKey refuses a key past the account's cap with
// ErrLimitReached, even when many ask at once; revoked keys make room; the
// cap is per account.
func testKeyCap(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")
	const max = 5
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, _ := newKey("acct-1", fmt.Sprintf("key-%02d", i), at(time.Duration(i)*time.Second))
			errs[i] = s.CreateKey(ctx, k, max)
		}()
	}
	wg.Wait()
	made := 0
	for i, err := range errs {
		switch {
		case err == nil:
			made++
		case !errors.Is(err, shlyuz.ErrLimitReached):
			t.Fatalf("CreateKey(key-%02d) = %v; want nil or ErrLimitReached", i, err)
		}
	}
	if made != max {
		t.Fatalf("%d keys made of 12 concurrent creations; want the cap, %d", made, max)
	}
	other, _ := newKey("acct-2", "key-other", at(0))
	if err := s.CreateKey(ctx, other, max); err != nil {
		t.Fatalf("another account's key: %v", err)
	}
	keys, err := s.KeysOf(ctx, "acct-1")
	if err != nil || len(keys) != max {
		t.Fatalf("KeysOf = %d, %v; want %d", len(keys), err, max)
	}
	if err := s.RevokeKey(ctx, keys[0].ID, at(time.Minute)); err != nil {
		t.Fatal(err)
	}
	again, _ := newKey("acct-1", "key-after-revoke", at(time.Minute))
	if err := s.CreateKey(ctx, again, max); err != nil {
		t.Fatalf("a key after one was revoked: %v", err)
	}
	late, _ := newKey("acct-1", "key-late", at(time.Minute))
	if err := s.CreateKey(ctx, late, max); !errors.Is(err, shlyuz.ErrLimitReached) {
		t.Fatalf("past the cap again: %v; want ErrLimitReached", err)
	}
}

// testAPIKeysPaged: APIKeys pages an account's API keys oldest first (then
// by id), leaves out revoked, management and web chat keys, and with LiveAt
// the disabled and expired ones.
func testAPIKeysPaged(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	mustAccount(t, s, "acct-2")
	for i := range 7 {
		k, _ := newKey("acct-1", fmt.Sprintf("key-%d", i), at(time.Duration(i/2)*time.Second)) // pairs share an instant
		switch i {
		case 1:
			k.RevokedAt = ptr(at(time.Hour))
		case 2:
			k.Disabled = true
		case 3:
			k.ExpiresAt = ptr(at(time.Hour))
		}
		if err := s.CreateKey(ctx, k, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []shlyuz.Key{
		func() shlyuz.Key { k, _ := newKey("acct-1", "key-mgmt", at(0)); k.Management = true; return k }(),
		func() shlyuz.Key { k, _ := newKey("acct-1", "key-web", at(0)); k.WebChat = true; return k }(),
		func() shlyuz.Key { k, _ := newKey("acct-2", "key-other", at(0)); return k }(),
	} {
		if err := s.CreateKey(ctx, k, 0); err != nil {
			t.Fatal(err)
		}
	}
	page := func(p shlyuz.KeyPage) []string {
		t.Helper()
		keys, err := s.APIKeys(ctx, "acct-1", p)
		if err != nil {
			t.Fatalf("APIKeys(%+v): %v", p, err)
		}
		ids := []string{}
		for _, k := range keys {
			ids = append(ids, k.ID)
		}
		return ids
	}
	tests := []struct {
		p    shlyuz.KeyPage
		want []string
	}{
		{shlyuz.KeyPage{Limit: 3}, []string{"key-0", "key-2", "key-3"}},
		{shlyuz.KeyPage{Offset: 3, Limit: 3}, []string{"key-4", "key-5", "key-6"}},
		{shlyuz.KeyPage{Offset: 5, Limit: 3}, []string{"key-6"}},
		{shlyuz.KeyPage{Offset: 9, Limit: 3}, []string{}},
		{shlyuz.KeyPage{Limit: 10, LiveAt: at(time.Minute)}, []string{"key-0", "key-3", "key-4", "key-5", "key-6"}}, // key-3 expires later
		{shlyuz.KeyPage{Limit: 10, LiveAt: at(2 * time.Hour)}, []string{"key-0", "key-4", "key-5", "key-6"}},
		{shlyuz.KeyPage{Offset: 1, Limit: 2, LiveAt: at(2 * time.Hour)}, []string{"key-4", "key-5"}},
	}
	for _, tc := range tests {
		if got := page(tc.p); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("APIKeys(%+v) = %v; want %v", tc.p, got, tc.want)
		}
	}
}

// testWebChatKey: the web chat's key is found by its mark, not by a name;
// a revoked one is not found.
func testWebChatKey(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	squatter, _ := newKey("acct-1", "key-squatter", at(0))
	squatter.Name = "shlyuz:web-chat"
	if err := s.CreateKey(ctx, squatter, 0); err != nil {
		t.Fatal(err)
	}
	_, err := s.WebChatKey(ctx, "acct-1")
	wantNoRows(t, "WebChatKey before the web chat made one", err)
	web, _ := newKey("acct-1", "key-web", at(time.Second))
	web.WebChat = true
	if err := s.CreateKey(ctx, web, 0); err != nil {
		t.Fatal(err)
	}
	if got, err := s.WebChatKey(ctx, "acct-1"); err != nil || got.ID != "key-web" || !got.WebChat {
		t.Fatalf("WebChatKey = %s, %v; want key-web", got.ID, err)
	}
	if err := s.RevokeKey(ctx, "key-web", at(time.Minute)); err != nil {
		t.Fatal(err)
	}
	_, err = s.WebChatKey(ctx, "acct-1")
	wantNoRows(t, "WebChatKey after its revocation", err)
}

// testUpdateKey: UpdateKey writes the name, ceiling, period, disabled flag
// and update time, and nothing else.
func testUpdateKey(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	k, _ := newKey("acct-1", "key-1", at(0))
	k.Limit, k.LimitReset = ptr(shlyuz.Credits(1_000)), shlyuz.ResetMonth
	k.AllowedModels = []string{"openai/"}
	if err := s.CreateKey(ctx, k, 0); err != nil {
		t.Fatal(err)
	}
	want := k
	want.Name, want.Limit, want.LimitReset, want.Disabled, want.UpdatedAt = "renamed", nil, shlyuz.ResetNever, true, ptr(at(time.Hour))
	change := want
	change.AllowedModels, change.Hash = nil, "not written" // neither is UpdateKey's to change
	if err := s.UpdateKey(ctx, change); err != nil {
		t.Fatal(err)
	}
	got, err := s.Key(ctx, "key-1")
	if err != nil {
		t.Fatal(err)
	}
	if g, w := keyString(got), keyString(normKey(want)); g != w {
		t.Errorf("after UpdateKey:\n  %s\nwant\n  %s", g, w)
	}
	want.Disabled, want.Limit, want.LimitReset = false, ptr(shlyuz.Credits(0)), shlyuz.ResetDay
	if err := s.UpdateKey(ctx, want); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Key(ctx, "key-1"); keyString(got) != keyString(normKey(want)) {
		t.Errorf("after enabling again:\n  %s\nwant\n  %s", keyString(got), keyString(normKey(want)))
	}
	missing := want
	missing.ID = "key-none"
	wantNoRows(t, "UpdateKey(unknown)", s.UpdateKey(ctx, missing))
}
