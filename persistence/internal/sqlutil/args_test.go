package sqlutil

import (
	"reflect"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// Args gives every row the values the one-row functions give it, whatever
// its neighbours: a box reused from the row before holds the same value.
func TestArgsAgreeRowByRow(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 123456000, time.UTC)
	attempts := []shlyuz.Attempt{{Upstream: "openai", Model: "gpt-4o", Status: 200}}
	details := &shlyuz.CreditsDetails{Input: 300, Output: 700}
	entries := []shlyuz.LedgerEntry{
		{ID: "chg-1", AccountID: "acc-1", KeyID: "key-1", Kind: shlyuz.EntryCharge, PackageDelta: -1000, Epoch: 3, CreatedAt: at},
		{ID: "chg-2", AccountID: "acc-1", KeyID: "key-1", Kind: shlyuz.EntryCharge, BoughtDelta: -77777, Epoch: 3, CreatedAt: at},
		{ID: "chg-3", AccountID: "acc-2", KeyID: "key-9", Kind: shlyuz.EntryCharge, PackageDelta: -5, CreatedAt: at.Add(time.Second)},
		{ID: "top-1", AccountID: "acc-2", Kind: shlyuz.EntryTopUp, BoughtDelta: 1 << 40, PackageExpiresAt: at, CreatedAt: at},
		{ID: "chg-4", AccountID: "acc-1", KeyID: "key-1", Kind: shlyuz.EntryCharge, PackageDelta: -1000, Epoch: 3, CreatedAt: at},
	}
	gens := []shlyuz.Generation{
		{ID: "gen-1", AccountID: "acc-1", KeyID: "key-1", Model: "openai/gpt-4o", Upstream: "openai", Attempts: attempts, PromptTokens: 300,
			CompletionTokens: 700, Credits: 1000, LatencyMS: 812, Status: shlyuz.GenerationCompleted, FinishReason: "stop", CreatedAt: at,
			PromptDetails: &shlyuz.PromptTokensDetails{CachedTokens: 100}, CreditsDetails: details},
		{ID: "gen-2", AccountID: "acc-1", KeyID: "key-1", Model: "openai/gpt-4o", Upstream: "openai", Attempts: attempts, PromptTokens: 300,
			CompletionTokens: 700, Credits: 1000, LatencyMS: 9, Status: shlyuz.GenerationCompleted, FinishReason: "stop", CreatedAt: at,
			PromptDetails: &shlyuz.PromptTokensDetails{CachedTokens: 100}, CreditsDetails: details},
		{ID: "gen-3", AccountID: "acc-1", KeyID: "key-1", Model: "openai/gpt-4o", Upstream: "openai", Status: shlyuz.GenerationFailed,
			FinishReason: "error", CreatedAt: at, Attempts: []shlyuz.Attempt{{Upstream: "openai", Model: "gpt-4o", Status: 502, Error: "bad gateway"}}},
		{ID: "gen-4", AccountID: "acc-2", KeyID: "key-9", Model: "anthropic/claude", Upstream: "anthropic", Streamed: true, Estimated: true,
			CreatedAt: at, User: "end-user-7", Note: "a note"},
		{ID: "gen-5", AccountID: "acc-1", KeyID: "key-1", Model: "openai/gpt-4o", Upstream: "openai", Attempts: attempts, PromptTokens: 300,
			CompletionTokens: 700, Credits: 1000, LatencyMS: 812, Status: shlyuz.GenerationCompleted, FinishReason: "stop", CreatedAt: at,
			CreditsDetails: details},
	}
	var a Args
	for round := range 2 { // the second round starts from the boxes the first left
		for i := range entries {
			got := a.Entry(nil, &entries[i])
			if want := AppendEntryArgs(nil, &entries[i]); !reflect.DeepEqual(got, want) {
				t.Errorf("round %d, entry %s: %v; want %v", round, entries[i].ID, got, want)
			}
		}
		for i := range gens {
			got := a.Generation(nil, &gens[i])
			if want := AppendGenerationArgs(nil, &gens[i]); !reflect.DeepEqual(got, want) {
				t.Errorf("round %d, generation %s: %v; want %v", round, gens[i].ID, got, want)
			}
		}
	}
}
