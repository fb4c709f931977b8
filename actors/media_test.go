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

// painter is an upstream with a media capability; instant has none.
type painter struct{ instant }

func (painter) Paint() {}

func paints(u *actors.Upstream) bool { _, ok := u.Provider.(interface{ Paint() }); return ok }

func mediaCall(hash string, id string, worst shlyuz.Credits) *actors.MediaCall {
	return &actors.MediaCall{GenerationID: id, KeyHash: hash, Model: "bench/model", AllowFallbacks: true,
		Started: time.Now(), Worst: worst, Supports: paints}
}

var (
	mediaOnce sync.Once
	mediaGW   *testGateway
)

// mediaGateway is the gateway the media tests share: a text-only upstream
// (×5), then two painters, cheap (×1.5) and dear (×2).
func mediaGateway() *testGateway {
	mediaOnce.Do(func() {
		mediaGW = startTestGateway(sharedTB,
			testUpstream{name: "text-only", provider: instant{}, multiplier: "5"},
			testUpstream{name: "cheap", provider: painter{}, multiplier: "1.5"},
			testUpstream{name: "dear", provider: painter{}, multiplier: "2"})
	})
	return mediaGW
}

func accepted(context.Context, *actors.Upstream, *shlyuz.UpstreamRequest) error { return nil }

// TestMediaSettlesAtTheServingUpstreamsPrice: the reservation is the worst
// case at the dearest upstream, the charge the cost at the serving one's
// multiplier, rounded up; an upstream without the capability is never tried.
func TestMediaSettlesAtTheServingUpstreamsPrice(t *testing.T) {
	tg := mediaGateway()
	hash := tg.account("acc-media", 1_000_000, 1_000_000)

	var tried []string
	m, err := tg.StartMedia(context.Background(), mediaCall(hash, "gen-media-1", 100),
		func(_ context.Context, u *actors.Upstream, req *shlyuz.UpstreamRequest) error {
			tried = append(tried, u.Config.Name)
			if req.GenerationID != "gen-media-1" || req.Model != "bench/model" {
				t.Errorf("upstream request = %+v", req)
			}
			if u.Config.Name == "cheap" {
				return shlyuz.ErrUpstream("down")
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(tried); got != "[cheap dear]" {
		t.Fatalf("tried %s, want [cheap dear] (the text-only upstream skipped, fallback to dear)", got)
	}
	if m.Held() != 200 {
		t.Fatalf("held %d, want 200 (100 at the dearest multiplier, 2)", m.Held())
	}
	ks, kerr := tg.CheckKey(hash)
	if kerr != nil || ks.Reserved != 200 {
		t.Fatalf("key reserved %v (%v), want 200", ks, kerr)
	}
	r := m.Settle(37, shlyuz.Usage{}, shlyuz.GenerationCompleted, "stop")
	if r.Credits != 74 || r.Upstream != "dear" {
		t.Fatalf("receipt %+v, want 74 credits (37 × 2) from dear", r)
	}
	assertSpent(t, tg, hash, "acc-media", 74, 1_000_000-74)
}

// TestMediaFailedCostsNothing: a failed call and a refused reservation hold nothing afterwards.
func TestMediaFailedCostsNothing(t *testing.T) {
	tg := mediaGateway()
	hash := tg.account("acc-fail", 1000, 500)

	m, err := tg.StartMedia(context.Background(), mediaCall(hash, "gen-fail-1", 150), accepted)
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Fail(shlyuz.ErrUpstream("broke")); r.Credits != 0 || r.Status != shlyuz.GenerationFailed {
		t.Fatalf("receipt %+v", r)
	}
	_, err = tg.StartMedia(context.Background(), mediaCall(hash, "gen-fail-2", 251), accepted)
	if e := shlyuz.AsError(err); e.Status != 403 {
		t.Fatalf("over the key ceiling: %v, want 403", err)
	}
	_, err = tg.StartMedia(context.Background(), mediaCall(hash, "gen-fail-3", 10), func(context.Context, *actors.Upstream, *shlyuz.UpstreamRequest) error {
		return shlyuz.ErrUpstream("down")
	})
	if err == nil {
		t.Fatal("a failing upstream: no error")
	}
	text := mediaCall(hash, "gen-fail-4", 10)
	text.Model = "text/model"
	if _, err := tg.StartMedia(context.Background(), text, accepted); shlyuz.AsError(err).Code != "model_not_available" {
		t.Fatalf("no upstream with the capability: %v, want model_not_available", err)
	}
	assertSpent(t, tg, hash, "acc-fail", 0, 1000)
}

// TestMediaConcurrentNeverOverspends: 200 concurrent calls against a small key
// ceiling and, on another account, a small balance; what was charged stays
// within each and equals the sum of the receipts.
func TestMediaConcurrentNeverOverspends(t *testing.T) {
	tg := mediaGateway()
	cases := []struct {
		name             string
		credits, ceiling shlyuz.Credits
		refusal          int
	}{
		{"key ceiling", 1_000_000, 2000, 403},
		{"balance", 2000, 1_000_000, 402},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			acc := "acc-conc-" + fmt.Sprint(tc.refusal)
			hash := tg.account(acc, tc.credits, tc.ceiling)
			var mu sync.Mutex
			var charged shlyuz.Credits
			var wg sync.WaitGroup
			for i := range 200 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					m, err := tg.StartMedia(context.Background(), mediaCall(hash, fmt.Sprintf("gen-%s-%d", acc, i), 30), accepted)
					if err != nil {
						var e *shlyuz.Error
						if !errors.As(err, &e) || e.Status != tc.refusal {
							t.Errorf("refusal %v, want %d", err, tc.refusal)
						}
						return
					}
					r := m.Settle(shlyuz.Credits(10+i%21), shlyuz.Usage{}, shlyuz.GenerationCompleted, "stop")
					mu.Lock()
					charged += r.Credits
					mu.Unlock()
				}()
			}
			wg.Wait()
			if charged == 0 || charged > 2000 {
				t.Fatalf("charged %d, want within (0, 2000]", charged)
			}
			assertSpent(t, tg, hash, acc, charged, tc.credits-charged)
		})
	}
}

// assertSpent waits for the settlements to reach the actors, then checks the
// key's spend, that nothing is held, and the account's balance.
func assertSpent(t *testing.T, tg *testGateway, hash, account string, spent, balance shlyuz.Credits) {
	t.Helper()
	if err := tg.Drain(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	ks, kerr := tg.CheckKey(hash)
	if kerr != nil {
		t.Fatal(kerr)
	}
	if ks.Spent != spent || ks.Reserved != 0 {
		t.Fatalf("key spent %d reserved %d, want %d and 0", ks.Spent, ks.Reserved, spent)
	}
	b, berr := tg.Balance(account)
	if berr != nil {
		t.Fatal(berr)
	}
	if b.Reserved != 0 || b.Balance.Available(time.Now()) != balance {
		t.Fatalf("account %+v, want %d available and nothing reserved", b, balance)
	}
}
