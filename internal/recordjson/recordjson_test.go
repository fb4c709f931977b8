package recordjson

import (
	"encoding/json"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// The expected bytes are encoding/json's (without HTML escaping, as
// plainjson writes), for records with every member set, none, and text
// that needs escaping.
var (
	at      = time.Date(2026, 3, 1, 12, 30, 5, 123456789, time.FixedZone("MSK", 3*3600))
	awkward = "a\"b\\c\n<&>\u2028\x01é\xff"
)

func TestAppendEntryIsEncodingJSON(t *testing.T) {
	for _, e := range []shlyuz.LedgerEntry{
		{},
		{ID: "chg-gen-1", AccountID: "acc-1", Kind: shlyuz.EntryCharge, PackageDelta: -5, BoughtDelta: -300, Epoch: 7, CreatedAt: at},
		{ID: awkward, AccountID: awkward, KeyID: awkward, Kind: shlyuz.EntryPackageGranted, PackageDelta: 1 << 62, BoughtDelta: -1 << 63,
			PackageExpiresAt: at.Add(time.Hour).UTC(), Epoch: -1, CreatedAt: time.Unix(0, 0).UTC()},
	} {
		same(t, AppendEntry(nil, &e), &e)
	}
}

func TestAppendGenerationIsEncodingJSON(t *testing.T) {
	full := shlyuz.Generation{ID: "gen-1", AccountID: "acc", KeyID: "key", Model: "openai/gpt", Upstream: awkward,
		Attempts: []shlyuz.Attempt{{Upstream: "a", Status: 502, Error: awkward}, {Upstream: "b", Model: "m", Status: 200}},
		Streamed: true, PromptTokens: 10, CompletionTokens: -3, Credits: 1 << 40, LatencyMS: 12, Status: "completed", FinishReason: "stop",
		CreatedAt: at, Estimated: true,
		PromptDetails:     &shlyuz.PromptTokensDetails{CachedTokens: 1, CacheWriteTokens: 2, CacheWrite1hTokens: 3, AudioTokens: 4, ImageTokens: 5},
		CompletionDetails: &shlyuz.CompletionTokensDetails{ReasoningTokens: 6, AudioTokens: 7, ImageTokens: 8},
		CreditsDetails: &shlyuz.CreditsDetails{Input: 1, CachedInput: 2, CacheWrite: 3, Output: 4, Reasoning: 5, AudioInput: 6, AudioOutput: 7,
			ImageInput: 8, ImageOutput: 9, Request: 10, WebSearch: 11},
		OverReserved: true, DroppedParameters: []string{"seed", awkward}, User: awkward, Note: awkward}
	for _, g := range []shlyuz.Generation{
		{},
		{Attempts: []shlyuz.Attempt{}, DroppedParameters: []string{}, PromptDetails: &shlyuz.PromptTokensDetails{},
			CompletionDetails: &shlyuz.CompletionTokensDetails{}, CreditsDetails: &shlyuz.CreditsDetails{}},
		{ID: "gen-2", Model: "m", Upstream: "u", Attempts: []shlyuz.Attempt{{Upstream: "u", Model: "m", Status: 200}}, Status: "failed",
			FinishReason: "error", CreatedAt: at.UTC(), CompletionDetails: &shlyuz.CompletionTokensDetails{}},
		full,
	} {
		same(t, AppendGeneration(nil, &g), &g)
		same(t, AppendAttempts(nil, g.Attempts), g.Attempts)
	}
}

func TestAppendBillingIsEncodingJSON(t *testing.T) {
	for _, d := range []Billing{
		{},
		{OverReserved: true},
		{Note: awkward},
		{Dropped: []string{"a"}},
		{User: "u"},
		{Completion: &shlyuz.CompletionTokensDetails{ReasoningTokens: 3}, User: "u"},
		{Prompt: &shlyuz.PromptTokensDetails{CachedTokens: 1}, Completion: &shlyuz.CompletionTokensDetails{}, Credits: &shlyuz.CreditsDetails{Input: 5},
			OverReserved: true, Note: "n", Dropped: []string{"x", "y"}, User: awkward},
	} {
		same(t, AppendBilling(nil, &d), d)
	}
}

func same(t *testing.T, got []byte, v any) {
	t.Helper()
	want, err := plainjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func BenchmarkAppendGeneration(b *testing.B) {
	g := shlyuz.Generation{ID: "gen-1", Model: "openai/gpt", Upstream: "u", Attempts: []shlyuz.Attempt{{Upstream: "u", Status: 200}},
		PromptTokens: 10, CompletionTokens: 3, Credits: 40, Status: "completed", FinishReason: "stop", CreatedAt: at,
		PromptDetails: &shlyuz.PromptTokensDetails{}, CompletionDetails: &shlyuz.CompletionTokensDetails{}, CreditsDetails: &shlyuz.CreditsDetails{Input: 1}}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendGeneration(buf[:0], &g)
	}
}

// The billing column's members are the Generation's own, by its JSON tags.
func TestBillingMembersAreTheGenerations(t *testing.T) {
	g := shlyuz.Generation{PromptDetails: &shlyuz.PromptTokensDetails{CachedTokens: 1}, CompletionDetails: &shlyuz.CompletionTokensDetails{ReasoningTokens: 2},
		CreditsDetails: &shlyuz.CreditsDetails{Input: 3}, OverReserved: true, Note: "n", DroppedParameters: []string{"x"}, User: "u"}
	var whole, billing map[string]json.RawMessage
	raw, _ := json.Marshal(&g)
	if err := json.Unmarshal(raw, &whole); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(AppendBilling(nil, &Billing{g.PromptDetails, g.CompletionDetails, g.CreditsDetails, g.OverReserved, g.Note, g.DroppedParameters, g.User}), &billing); err != nil {
		t.Fatal(err)
	}
	if len(billing) != 7 {
		t.Fatalf("billing members %d, want 7", len(billing))
	}
	for k, v := range billing {
		if string(whole[k]) != string(v) {
			t.Errorf("%s: billing %s, the generation %s", k, v, whole[k])
		}
	}
}
