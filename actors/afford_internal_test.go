package actors

import (
	"encoding/json"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The floor a lowered cap may reach: the client's cap or 1,024 tokens,
// whichever is less; one token when the client set none; and room for
// Anthropic's least thinking budget (1,024) plus one when the call thinks
// there, never above the cap itself.
func TestCapFloor(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		maxTokens, minTokens, out int64
		want                      int64
	}{
		{"no cap set", 0, 0, 4096, 1},
		{"an agent's large cap", 64_000, 0, 128_000, 1024},
		{"a small cap is its own floor", 500, 0, 4096, 500},
		{"the cap at the floor", 1024, 0, 4096, 1024},
		{"thinking on Anthropic", 64_000, 1025, 128_000, 1025},
		{"thinking with no cap set", 0, 1025, 4096, 1025},
		{"thinking above a tiny model limit", 0, 1025, 800, 800},
		{"thinking with a cap below its need", 900, 1025, 4096, 900},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &acctReserve{MaxTokens: tc.maxTokens, MinTokens: tc.minTokens, MaxOut: tc.out}
			if got := m.floor(); got != tc.want {
				t.Fatalf("floor %d, want %d", got, tc.want)
			}
		})
	}
}

// A call needs room for a thinking budget only where an Anthropic upstream
// may serve it and it asks to think.
func TestThinkingNeed(t *testing.T) {
	anthropic := &Upstream{Config: shlyuz.UpstreamConfig{Protocol: shlyuz.ProtocolAnthropic}}
	openai := &Upstream{Config: shlyuz.UpstreamConfig{}}
	for _, tc := range []struct {
		name   string
		fields map[string]string
		ups    []*Upstream
		want   int64
	}{
		{"thinking with a budget", map[string]string{"reasoning": `{"enabled":true,"max_tokens":3000}`}, []*Upstream{anthropic}, 1025},
		{"an effort", map[string]string{"reasoning_effort": `"high"`}, []*Upstream{openai, anthropic}, 1025},
		{"turned off", map[string]string{"reasoning": `{"effort":"none"}`}, []*Upstream{anthropic}, 0},
		{"no reasoning", map[string]string{}, []*Upstream{anthropic}, 0},
		{"not served by Anthropic", map[string]string{"reasoning": `{"max_tokens":3000}`}, []*Upstream{openai}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := map[string]json.RawMessage{}
			for k, v := range tc.fields {
				f[k] = json.RawMessage(v)
			}
			if got := thinkingNeed(&ChatCall{Fields: f}, tc.ups); got != tc.want {
				t.Fatalf("need %d, want %d", got, tc.want)
			}
		})
	}
}
