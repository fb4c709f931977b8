package storetest

import (
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// RunReopen checks that a store keeps everything across Close and a new open
// of the same database, twice (so migrations also meet an up-to-date schema).
// open returns a fresh store and a function that opens the same database
// again; RunReopen closes each store before it opens the next.
func RunReopen(t *testing.T, open func(t *testing.T) (shlyuz.Store, func(t *testing.T) shlyuz.Store)) {
	s, reopen := open(t)
	ctx := t.Context()
	w := populate(t, s)
	w.check(t, s)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = reopen(t)
	w.check(t, s)
	// The fence survives: the epoch goes on from where it was.
	b, err := s.ClaimBalance(ctx, "acct-1")
	if err != nil || b.Epoch != w.epoch+1 {
		t.Fatalf("ClaimBalance after reopening = epoch %d, %v; want %d", b.Epoch, err, w.epoch+1)
	}
	w.epoch++
	late := []shlyuz.LedgerEntry{charge("late-stale", "acct-1", 0, 1, w.epoch-1), topUp("late-top", "acct-1", 77, w.epoch)}
	wantResult(t, mustCommit(t, s, shlyuz.Batch{Entries: late}), []string{"late-top"}, nil, []string{"late-stale"})
	w.entries = append(w.entries, late[1])
	w.bought += 77
	w.check(t, s)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = reopen(t)
	w.check(t, s)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// written is what populate wrote, for check to find again.
type written struct {
	account     shlyuz.Account
	keys        []shlyuz.Key
	entries     []shlyuz.LedgerEntry
	generation  shlyuz.Generation
	settings    shlyuz.Settings
	plans       []shlyuz.Plan
	models      []shlyuz.Model
	pkg, bought shlyuz.Credits
	expires     time.Time
	epoch       int64
	spend       shlyuz.Credits
}

func populate(t *testing.T, s shlyuz.Store) *written {
	ctx := t.Context()
	w := &written{account: mustAccount(t, s, "acct-1")}
	limited, _ := newKey("acct-1", "key-1", at(time.Second))
	limited.Limit = ptr(shlyuz.Credits(123_456))
	limited.LimitReset = shlyuz.ResetWeek
	limited.ExpiresAt = ptr(at(90 * 24 * time.Hour))
	revoked, _ := newKey("acct-1", "key-2", at(2*time.Second))
	for _, k := range []shlyuz.Key{limited, revoked} {
		if err := s.CreateKey(ctx, k, 0); err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
	}
	if err := s.RevokeKey(ctx, "key-2", at(time.Hour)); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	revoked.RevokedAt = ptr(at(time.Hour))
	w.keys = []shlyuz.Key{limited, revoked}

	for range 2 {
		if _, err := s.ClaimBalance(ctx, "acct-1"); err != nil {
			t.Fatalf("ClaimBalance: %v", err)
		}
	}
	w.epoch = 2
	w.expires = at(30 * 24 * time.Hour)
	w.entries = []shlyuz.LedgerEntry{
		topUp("t1", "acct-1", 1_000_000, 2),
		grant("g1", "acct-1", 500_000, w.expires, 2),
		charge("c1", "acct-1", 1_000, 250, 2),
	}
	w.generation = generation("gen-1", "acct-1")
	mustCommit(t, s, shlyuz.Batch{Entries: w.entries, Generations: []shlyuz.Generation{w.generation}})
	w.pkg, w.bought, w.spend = 499_000, 999_750, 1_250

	w.settings = shlyuz.Settings{Pricing: shlyuz.Pricing{Rate: shlyuz.MustDecimal("92.75"), K: shlyuz.MustDecimal("1.3")}, UpdatedAt: at(time.Minute)}
	if err := s.SaveSettings(ctx, w.settings); err != nil {
		t.Fatalf("SaveSettings: %v", err)
	}
	w.settings.UpdatedAt = norm(w.settings.UpdatedAt)
	w.plans = []shlyuz.Plan{{ID: "basic", Name: "Basic", PriceRubles: shlyuz.MustDecimal("490.9"), PackageCredits: 49_090_000, Period: shlyuz.ResetMonth}}
	if err := s.SavePlan(ctx, w.plans[0]); err != nil {
		t.Fatalf("SavePlan: %v", err)
	}
	w.models = []shlyuz.Model{{ID: "openai/gpt-4o-mini", Name: "mini", USD: shlyuz.USDPrice{PromptPerMTok: shlyuz.MustDecimal("0.15"), CompletionPerMTok: shlyuz.MustDecimal("0.6")}}}
	if err := s.SaveModelOverride(ctx, w.models[0]); err != nil {
		t.Fatalf("SaveModelOverride: %v", err)
	}
	return w
}

func (w *written) check(t *testing.T, s shlyuz.Store) {
	t.Helper()
	ctx := t.Context()
	a, err := s.Account(ctx, w.account.ID)
	if err != nil || a.Email != w.account.Email || !a.CreatedAt.Equal(norm(w.account.CreatedAt)) {
		t.Errorf("Account = %+v, %v; want %+v", a, err, w.account)
	}
	keys, err := s.KeysOf(ctx, w.account.ID)
	if err != nil || len(keys) != len(w.keys) {
		t.Fatalf("KeysOf = %d keys, %v; want %d", len(keys), err, len(w.keys))
	}
	for i := range keys {
		if g, want := keyString(keys[i]), keyString(normKey(w.keys[i])); g != want {
			t.Errorf("key %d =\n  %s\nwant\n  %s", i, g, want)
		}
	}
	b := wantBalance(t, s, w.account.ID, w.pkg, w.bought, w.epoch)
	if !b.PackageExpiresAt.Equal(norm(w.expires)) {
		t.Errorf("PackageExpiresAt = %v; want %v", b.PackageExpiresAt, norm(w.expires))
	}
	for _, e := range w.entries {
		wantEntry(t, s, e)
	}
	wantGeneration(t, s, w.generation)
	if got, err := s.KeySpend(ctx, "key-1", time.Time{}); err != nil || got != w.spend {
		t.Errorf("KeySpend = %d, %v; want %d", got, err, w.spend)
	}
	st, ok, err := s.Settings(ctx)
	if err != nil || !ok || jsonOf(t, st) != jsonOf(t, w.settings) {
		t.Errorf("Settings = %s, %v, %v; want %s", jsonOf(t, st), ok, err, jsonOf(t, w.settings))
	}
	if plans, err := s.Plans(ctx); err != nil || jsonOf(t, plans) != jsonOf(t, w.plans) {
		t.Errorf("Plans = %s, %v; want %s", jsonOf(t, plans), err, jsonOf(t, w.plans))
	}
	if models, err := s.ModelOverrides(ctx); err != nil || jsonOf(t, models) != jsonOf(t, w.models) {
		t.Errorf("ModelOverrides = %s, %v; want %s", jsonOf(t, models), err, jsonOf(t, w.models))
	}
	wantReconciled(t, s)
}
