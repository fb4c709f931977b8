package main

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// TestStreamCutBillsThePromptsBound: a stream the client cuts before the
// upstream reported usage bills the prompt by the reserve's bound, never a
// likely count: for a prompt of random mixed-case Cyrillic (the text that
// costs tokenizers the most a letter) the charge is at least what o200k
// and cl100k count for it, at the model's price.
func TestStreamCutBillsThePromptsBound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	for b.Len() < 20_000 {
		for range 1 + r.IntN(8) {
			b.WriteRune(0x0410 + rune(r.IntN(64)))
		}
		b.WriteByte(' ')
	}
	prompt := b.String()
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	most := 0
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		enc, err := tiktoken.GetEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, len(enc.Encode(prompt, nil, nil)))
	}

	_, key := account(t, h.base, 10_000_000, nil)
	g := cutStalledStream(t, key, postChat(t, h.base, key, map[string]any{"model": "faulty/fault-stall", "stream": true,
		"messages": []map[string]any{{"role": "user", "content": prompt}}}))
	t.Logf("the tokenizers count %d prompt tokens; billed %d, %d credits", most, g.Data.TokensPrompt, g.Data.Credits)
	if g.Data.Status != "cancelled" || g.Data.TokensPrompt < int64(most) || g.Data.Credits < promptCredits*int64(most) {
		t.Fatalf("generation %+v: below the tokenizers' %d prompt tokens", g.Data, most)
	}
}
