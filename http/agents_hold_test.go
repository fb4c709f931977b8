package http

import (
	"encoding/json"
	"math/big"
	"os"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/tokens/tokenstest"
	"golang.org/x/text/unicode/norm"
)

// Claude Code marks its prompt for five-minute caching (three
// cache_control marks, no ttl): on a cold cache Anthropic bills the
// prefix up to the last mark at the five-minute write price and the rest
// at the input price. Its prompt's hold, the reserve at the dearest price
// the request can be billed, stays within 1.5 times that charge at each
// Claude's listed prices (../shared/data/litellm-model-prices.json:
// input, cache_creation, cache_creation above_1hr, per million tokens).
func TestClaudeCodePromptHoldsWhatItsCacheWriteCosts(t *testing.T) {
	claude, err := tokenstest.Claude()
	if err != nil {
		t.Fatal(err)
	}
	count := func(s string) int64 { return int64(len(claude.Encode(norm.NFKC.String(s), nil, nil))) }
	raw, err := os.ReadFile("testdata/agents/claude-code-2.1.197.json")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools, System json.RawMessage
		Messages      []json.RawMessage
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	// The last mark is on the first message's last part: the tools, the
	// system prompt (with the 346 tokens of tool-use instructions Anthropic
	// bills) and the first message are written; the second message is not.
	if len(body.Messages) != 2 {
		t.Fatalf("%d messages: the capture changed", len(body.Messages))
	}
	prefix, _ := json.Marshal(map[string]any{"tools": body.Tools, "system": body.System, "messages": body.Messages[:1]})
	rest, _ := json.Marshal(map[string]any{"messages": body.Messages[1:]})
	written, fresh := count(promptText(t, prefix))+346, count(promptText(t, rest))

	c, perr := anthropic.ParseMessages(raw, func(string, ...string) string { return "" }, false)
	if perr != nil {
		t.Fatal(perr)
	}
	pricing := shlyuz.Pricing{Rate: shlyuz.MustDecimal("100"), K: shlyuz.MustDecimal("1")}
	for _, m := range []struct{ model, input, write, write1h string }{
		{"anthropic/claude-opus-4.8", "5", "6.25", "10"},
		{"anthropic/claude-sonnet-4.5", "3", "3.75", "6"},
		{"anthropic/claude-haiku-4.5", "1", "1.25", "2"},
	} {
		t.Run(m.model, func(t *testing.T) {
			d := func(s string) *shlyuz.Decimal { v := shlyuz.MustDecimal(s); return &v }
			price := shlyuz.DerivePrice(shlyuz.USDPrice{PromptPerMTok: shlyuz.MustDecimal(m.input), CompletionPerMTok: shlyuz.MustDecimal("25"),
				PriceParts: shlyuz.PriceParts{CacheWritePerMTok: d(m.write), CacheWrite1hPerMTok: d(m.write1h)}}, pricing)
			reserve := c.Prompt.ReserveFor(m.model)
			hold := new(big.Rat).SetInt64(reserve * price.BoundFor(reserve, c.PromptKinds(m.model, &price)).PromptMicro)
			before := new(big.Rat).SetInt64(reserve * price.Bound(reserve).PromptMicro)
			// The charge in the same micro-credits: a dollar a million tokens is 10,000,000 a token at 100 ₽ a dollar.
			rat := func(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }
			charge := new(big.Rat).Add(new(big.Rat).Mul(big.NewRat(written, 1), rat(m.write)), new(big.Rat).Mul(big.NewRat(fresh, 1), rat(m.input)))
			charge.Mul(charge, big.NewRat(10_000_000, 1))
			ratio, _ := new(big.Rat).Quo(hold, charge).Float64()
			was, _ := new(big.Rat).Quo(before, charge).Float64()
			t.Logf("reserve %d tokens; charged %d written + %d fresh; prompt hold %s credits (%.3f×), at every prompt price %s (%.3f×), charge %s",
				reserve, written, fresh, hold.Quo(hold, big.NewRat(1_000_000, 1)).FloatString(0), ratio,
				before.Quo(before, big.NewRat(1_000_000, 1)).FloatString(0), was, charge.Quo(charge, big.NewRat(1_000_000, 1)).FloatString(0))
			if ratio < 1 || ratio > 1.5 {
				t.Errorf("the prompt's hold is %.3f× its cold-cache charge, want within [1, 1.5]", ratio)
			}
		})
	}
}

// BenchmarkClaudeCodePromptKinds measures reading Claude Code's captured
// request for the prompt prices its hold is bounded by, at Claude's prices.
func BenchmarkClaudeCodePromptKinds(b *testing.B) {
	raw, err := os.ReadFile("testdata/agents/claude-code-2.1.197.json")
	if err != nil {
		b.Fatal(err)
	}
	c, perr := anthropic.ParseMessages(raw, func(string, ...string) string { return "" }, false)
	if perr != nil {
		b.Fatal(perr)
	}
	price := shlyuz.Price{PromptMicro: 50, CacheReadMicro: 5, CacheWriteMicro: 63, CacheWrite1hMicro: 100, AudioInMicro: 50, ImageInMicro: 50}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		_ = c.PromptKinds("anthropic/claude-opus-4.8", &price)
	}
}
