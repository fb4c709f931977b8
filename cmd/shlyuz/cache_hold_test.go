package main

import (
	"strings"
	"testing"
)

// TestCacheWritesAreHeldOnlyWhenAsked: a Messages request to Claude Sonnet
// 4.5 is held at its input price when it marks nothing for caching, at the
// five-minute write price when it marks a block, at the one-hour write price
// when the mark's ttl is "1h" (litellm-model-prices.json "claude-sonnet-4-5":
// $3, $3.75 and $6 a million tokens, 30, 37.5 and 60 credits a token at the
// test's 100 ₽ a dollar; output $15, 150 credits). The unmarked request's
// least balance that is served gives its prompt's reserve; the marked ones,
// the same text, are refused one credit short of that reserve at their
// price and served at it.
func TestCacheWritesAreHeldOnlyWhenAsked(t *testing.T) {
	headers := func(key string) map[string]string {
		return map[string]string{"X-Api-Key": key, "Anthropic-Version": "2023-06-01"}
	}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40)
	body := func(mark map[string]any) map[string]any {
		system := map[string]any{"type": "text", "text": "You are terse. " + text}
		if mark != nil {
			system["cache_control"] = mark
		}
		return map[string]any{"model": "claude/sonnet-4.5", "max_tokens": 1, "system": []any{system},
			"messages": []map[string]any{{"role": "user", "content": "Say hi."}}}
	}
	served := func(balance int64, b map[string]any) bool {
		t.Helper()
		_, key := account(t, h.base, balance, nil)
		st, _, out := postRaw(t, "/api/v1/messages", b, headers(key))
		if st != 200 && st != 402 {
			t.Fatalf("with %d credits: %d %s", balance, st, out)
		}
		return st == 200
	}
	// The least balance the unmarked request is served with: 30 a prompt token and 150 for the one completion token.
	lo, hi := int64(150), int64(10_000_000)
	if !served(hi, body(nil)) {
		t.Fatalf("not served with %d credits", hi)
	}
	for lo+1 < hi { // served(hi), not served(lo)
		mid := lo + (hi-lo)/2
		if served(mid, body(nil)) {
			hi = mid
		} else {
			lo = mid
		}
	}
	if (hi-150)%30 != 0 {
		t.Fatalf("the unmarked request is held %d credits: not 30 a prompt token and 150", hi)
	}
	reserve := (hi - 150) / 30
	for _, tc := range []struct {
		name string
		mark map[string]any
		hold int64 // the reserve at the listed price, rounded up, and the completion token
	}{
		{"five-minute mark", map[string]any{"type": "ephemeral"}, (reserve*375+9)/10 + 150},
		{"one-hour mark", map[string]any{"type": "ephemeral", "ttl": "1h"}, reserve*60 + 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if served(tc.hold-1, body(tc.mark)) {
				t.Errorf("served with %d credits, one short of the hold %d", tc.hold-1, tc.hold)
			}
			if !served(tc.hold, body(tc.mark)) {
				t.Errorf("refused with %d credits, the hold", tc.hold)
			}
		})
	}
	t.Logf("prompt reserve %d tokens: held %d credits unmarked", reserve, hi)
}
