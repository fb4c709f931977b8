package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

func generation(id, account string) shlyuz.Generation {
	return shlyuz.Generation{
		ID:        id,
		AccountID: account,
		KeyID:     "key-1",
		Model:     "openai/gpt-4o",
		Upstream:  "openai-main",
		Attempts: []shlyuz.Attempt{
			{Upstream: "openai-backup", Status: 503, Error: "upstream overloaded: \"try later\" ☂"},
			{Upstream: "openai-main", Status: 200},
		},
		Streamed:         true,
		PromptTokens:     1234,
		CompletionTokens: 567,
		Credits:          89_012,
		LatencyMS:        3456,
		Status:           shlyuz.GenerationCompleted,
		FinishReason:     "stop",
		CreatedAt:        at(5 * time.Second),
		Estimated:        true,
	}
}

// generationString shows every stored field of a generation, the details
// it points to as JSON.
func generationString(g shlyuz.Generation) string {
	details, _ := json.Marshal([]any{g.PromptDetails, g.CompletionDetails, g.CreditsDetails}) // plain structs always marshal
	g.PromptDetails, g.CompletionDetails, g.CreditsDetails = nil, nil, nil
	return fmt.Sprintf("%+v attempts=%#v details=%s created=%s@%s", g, g.Attempts, details, g.CreatedAt.Format(time.RFC3339Nano), g.CreatedAt.Location())
}

func wantGeneration(t *testing.T, s shlyuz.Store, want shlyuz.Generation) {
	t.Helper()
	got, err := s.Generation(t.Context(), want.ID)
	if err != nil {
		t.Errorf("Generation(%s): %v", want.ID, err)
		return
	}
	want.CreatedAt = norm(want.CreatedAt)
	if g, w := generationString(got), generationString(want); g != w {
		t.Errorf("Generation(%s) =\n  %s\nwant\n  %s", want.ID, g, w)
	}
}

func testGenerations(t *testing.T, s shlyuz.Store) {
	mustAccount(t, s, "acct-1")
	full := generation("gen-1", "acct-1")
	bare := shlyuz.Generation{ID: "gen-2", AccountID: "acct-1", Model: "x/y", Status: shlyuz.GenerationFailed, CreatedAt: at(0)}
	empty := generation("gen-3", "acct-1")
	empty.Attempts = []shlyuz.Attempt{}
	empty.Streamed = false

	// Generations ride in a batch with or without entries.
	mustCommit(t, s, shlyuz.Batch{Generations: []shlyuz.Generation{full, bare}})
	mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("t1", "acct-1", 10, 0)}, Generations: []shlyuz.Generation{empty}})
	for _, g := range []shlyuz.Generation{full, bare, empty} {
		wantGeneration(t, s, g)
	}

	// Committing a generation again replaces it (a stream's final record after its first).
	final := full
	final.Attempts = append([]shlyuz.Attempt{{Upstream: "anthropic", Status: 429, Error: "rate limited"}}, full.Attempts...)
	final.Status = shlyuz.GenerationCancelled
	final.CompletionTokens = 600
	final.Credits = 90_000
	final.FinishReason = ""
	final.Estimated = false
	res := mustCommit(t, s, shlyuz.Batch{Generations: []shlyuz.Generation{final}})
	wantResult(t, res, nil, nil, nil)
	wantGeneration(t, s, final)
}

func testSettings(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	if got, ok, err := s.Settings(ctx); err != nil || ok {
		t.Fatalf("Settings before any save = %+v, %v, %v; want false, nil", got, ok, err)
	}
	for _, want := range []shlyuz.Settings{
		{Pricing: shlyuz.Pricing{Rate: shlyuz.MustDecimal("95.5"), K: shlyuz.MustDecimal("1.25")}, UpdatedAt: at(0)},
		{Pricing: shlyuz.Pricing{Rate: shlyuz.MustDecimal("101.123456789012"), K: shlyuz.MustDecimal("0.000001")}, UpdatedAt: at(time.Hour)},
	} {
		if err := s.SaveSettings(ctx, want); err != nil {
			t.Fatalf("SaveSettings: %v", err)
		}
		got, ok, err := s.Settings(ctx)
		if err != nil || !ok {
			t.Fatalf("Settings = %v, %v; want saved settings", ok, err)
		}
		want.UpdatedAt = norm(want.UpdatedAt)
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w || got.Pricing.Rate.Cmp(want.Pricing.Rate) != 0 || got.Pricing.K.Cmp(want.Pricing.K) != 0 {
			t.Errorf("Settings = %s; want %s", g, w)
		}
	}
}

// testReplaceSettings: a save conditioned on what was read lands only while nothing changed in between.
func testReplaceSettings(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	first := shlyuz.Settings{Pricing: shlyuz.Pricing{Rate: shlyuz.MustDecimal("90"), K: shlyuz.MustDecimal("1")}, UpdatedAt: at(0)}
	pinned := shlyuz.Settings{Pricing: shlyuz.Pricing{Rate: shlyuz.MustDecimal("100"), K: shlyuz.MustDecimal("1")}, UpdatedAt: at(time.Minute)}
	feed := shlyuz.Settings{Pricing: shlyuz.Pricing{Rate: shlyuz.MustDecimal("81.5075"), K: shlyuz.MustDecimal("1")}, UpdatedAt: at(time.Hour)}
	steps := []struct {
		name string
		prev *shlyuz.Settings
		next shlyuz.Settings
		want bool
		rate string // the stored rate after the step
	}{
		{"the first save, nothing stored", nil, first, true, "90"},
		{"a second first save loses", nil, feed, false, "90"},
		{"a save over what was read", &first, pinned, true, "100"},
		{"a save over a stale read loses", &first, feed, false, "100"},
		{"a save over the fresh read", &pinned, feed, true, "81.5075"},
	}
	for _, st := range steps {
		got, err := s.ReplaceSettings(ctx, st.prev, st.next)
		if err != nil || got != st.want {
			t.Fatalf("%s: ReplaceSettings = %v, %v; want %v", st.name, got, err, st.want)
		}
		cur, ok, err := s.Settings(ctx)
		if err != nil || !ok || cur.Pricing.Rate.String() != st.rate {
			t.Fatalf("%s: stored rate %v (%v, %v); want %s", st.name, cur.Pricing.Rate, ok, err, st.rate)
		}
	}
}

func testPlans(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	if plans, err := s.Plans(ctx); err != nil || len(plans) != 0 {
		t.Fatalf("Plans of a new store = %v, %v; want none", plans, err)
	}
	plans := []shlyuz.Plan{
		{ID: "pro", Name: "Pro", PriceRubles: shlyuz.MustDecimal("1990.50"), PackageCredits: 199_050_000, Period: shlyuz.ResetMonth},
		{ID: "basic", Name: "Базовый", PriceRubles: shlyuz.MustDecimal("490"), PackageCredits: 49_000_000, Period: shlyuz.ResetMonth},
		{ID: "day", Name: "Day pass", PriceRubles: shlyuz.MustDecimal("0.99999"), PackageCredits: 99_999, Period: shlyuz.ResetDay},
	}
	for _, p := range plans {
		if err := s.SavePlan(ctx, p); err != nil {
			t.Fatalf("SavePlan(%s): %v", p.ID, err)
		}
	}
	wantPlans := func(want ...shlyuz.Plan) {
		t.Helper()
		got, err := s.Plans(ctx)
		if err != nil {
			t.Fatalf("Plans: %v", err)
		}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Errorf("Plans =\n  %s\nwant\n  %s", g, w)
		}
	}
	wantPlans(plans[1], plans[2], plans[0])

	changed := plans[0]
	changed.PriceRubles = shlyuz.MustDecimal("2490")
	changed.Name = "Pro+"
	if err := s.SavePlan(ctx, changed); err != nil {
		t.Fatalf("SavePlan(changed): %v", err)
	}
	wantPlans(plans[1], plans[2], changed)

	if err := s.DeletePlan(ctx, "day"); err != nil {
		t.Fatalf("DeletePlan: %v", err)
	}
	wantPlans(plans[1], changed)
	wantNoRows(t, "DeletePlan(day) again", s.DeletePlan(ctx, "day"))
}

func testModelOverrides(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	if models, err := s.ModelOverrides(ctx); err != nil || len(models) != 0 {
		t.Fatalf("ModelOverrides of a new store = %v, %v; want none", models, err)
	}
	gpt := shlyuz.Model{
		ID: "openai/gpt-4o", Name: "GPT-4o", ContextLength: 128_000, MaxOutputTokens: 16_384,
		InputModalities: []string{"text", "image"}, OutputModalities: []string{"text"},
		USD:     shlyuz.USDPrice{PromptPerMTok: shlyuz.MustDecimal("2.5"), CompletionPerMTok: shlyuz.MustDecimal("10")},
		Created: 1715367049,
	}
	claude := shlyuz.Model{
		ID: "anthropic/claude-sonnet", Name: "Claude Sonnet", ContextLength: 200_000,
		USD: shlyuz.USDPrice{PromptPerMTok: shlyuz.MustDecimal("3"), CompletionPerMTok: shlyuz.MustDecimal("15.000001")},
	}
	for _, m := range []shlyuz.Model{gpt, claude} {
		if err := s.SaveModelOverride(ctx, m); err != nil {
			t.Fatalf("SaveModelOverride(%s): %v", m.ID, err)
		}
	}
	wantModels := func(want ...shlyuz.Model) {
		t.Helper()
		got, err := s.ModelOverrides(ctx)
		if err != nil {
			t.Fatalf("ModelOverrides: %v", err)
		}
		if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
			t.Errorf("ModelOverrides =\n  %s\nwant\n  %s", g, w)
		}
	}
	wantModels(claude, gpt)

	cheaper := gpt
	cheaper.USD.PromptPerMTok = shlyuz.MustDecimal("1.25")
	if err := s.SaveModelOverride(ctx, cheaper); err != nil {
		t.Fatalf("SaveModelOverride(cheaper): %v", err)
	}
	wantModels(claude, cheaper)
}
