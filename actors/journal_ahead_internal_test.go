package actors

import (
	"bytes"
	"encoding/json"
	"reflect"
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

// The hand-written record is what encoding/json writes for it (but for
// HTML escaping), and reads back as it was.
func TestEncodeAheadIsEncodingJSON(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 30, 5, 1234, time.UTC)
	e := &shlyuz.LedgerEntry{ID: "chg-<gen>", AccountID: "acc-1", KeyID: "key-1", Kind: shlyuz.EntryCharge, BoughtDelta: -700, Epoch: 3, CreatedAt: at}
	g := &shlyuz.Generation{ID: "gen-1", AccountID: "acc-1", KeyID: "key-\"1", Model: "m", Upstream: "u",
		Attempts: []shlyuz.Attempt{{Upstream: "u", Status: 200}}, PromptTokens: 12, CompletionTokens: 9, Credits: 700,
		Status: shlyuz.GenerationCompleted, FinishReason: "stop", CreatedAt: at, CreditsDetails: &shlyuz.CreditsDetails{Input: 100, Output: 600},
		DroppedParameters: []string{"seed"}, Note: "é & ü"}
	for _, r := range []aheadRecord{{Entry: e}, {Generation: g}, {Entry: e, Generation: g}, {Generation: &shlyuz.Generation{ID: "gen-2"}}} {
		if r.Generation != nil {
			r.Account, r.Key = r.Generation.AccountID, r.Generation.KeyID
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
		got, err := encodeAhead(r.Entry, r.Generation)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("got  %s\nwant %s", got, want.String())
		}
		back, err := decodeAhead(got.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, r) {
			t.Errorf("read back %+v, want %+v", back, r)
		}
		aheadBufs.Put(got)
	}
}
