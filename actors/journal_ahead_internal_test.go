package actors

import (
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// BenchmarkEncodeAhead is one settlement's record for the write-ahead log.
func BenchmarkEncodeAhead(b *testing.B) {
	now := time.Now()
	e := &shlyuz.LedgerEntry{ID: "chg-gen-1795789141-PEXBTVXTOH3XY3IHCOGB3QB7", AccountID: "acc-1", KeyID: "key-1", Kind: shlyuz.EntryCharge, BoughtDelta: -700, Epoch: 3, CreatedAt: now}
	g := &shlyuz.Generation{ID: "gen-1795789141-PEXBTVXTOH3XY3IHCOGB3QB7", AccountID: "acc-1", KeyID: "key-1", Model: "openai/gpt-4o-mini", Upstream: "openai",
		Attempts: []shlyuz.Attempt{{Upstream: "openai", Status: 200}}, PromptTokens: 12, CompletionTokens: 9, Credits: 700, LatencyMS: 1,
		Status: shlyuz.GenerationCompleted, FinishReason: "stop", CreatedAt: now,
		PromptDetails: &shlyuz.PromptTokensDetails{}, CompletionDetails: &shlyuz.CompletionTokensDetails{}, CreditsDetails: &shlyuz.CreditsDetails{Input: 100, Output: 600}}
	b.ReportAllocs()
	for b.Loop() {
		buf, err := encodeAhead(e, g)
		if err != nil {
			b.Fatal(err)
		}
		aheadBufs.Put(buf)
	}
}
