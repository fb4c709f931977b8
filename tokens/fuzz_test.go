package tokens

import (
	"encoding/json"
	"testing"
)

// FuzzEstimates: the token estimates never panic, and are never negative;
// a prompt's likely count is at least one and at most its reserve.
func FuzzEstimates(f *testing.F) {
	for _, seed := range []string{
		`[{"content":"hi"}]`, `[{"message":{"content":"abcd"}}]`, `[{"content":[{"type":"text","text":"x"},{"type":"image_url"}]}]`,
		`[{"content":"\ud83d\ude00 \u0436\u04 12345 Привет, world!\n\t  x"}]`, `[{"content":"\\"}]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if e, err := EstimatePrompt(json.RawMessage(s)); err == nil && (e.Likely < 1 || e.Reserve < e.Likely) {
			t.Fatalf("prompt %q estimated %+v", s, e)
		}
		if n := EstimateCompletion(json.RawMessage(s)); n < 0 {
			t.Fatalf("completion %q estimated %d", s, n)
		}
	})
}
