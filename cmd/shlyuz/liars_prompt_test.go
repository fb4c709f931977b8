package main

import (
	"bufio"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

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
	resp := postChat(t, h.base, key, map[string]any{"model": "faulty/fault-stall", "stream": true,
		"messages": []map[string]any{{"role": "user", "content": prompt}}})
	id := resp.Header.Get("X-Generation-Id")
	rd := bufio.NewReader(resp.Body)
	for chunks := 0; chunks < 2; { // the stall fault sends a few chunks, then nothing
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "data: ") {
			chunks++
		}
	}
	resp.Body.Close()
	var g generationView
	waitFor(t, 10*time.Second, "the cut stream to settle", func() bool {
		return call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g) == 200
	})
	t.Logf("the tokenizers count %d prompt tokens; billed %d, %d credits", most, g.Data.TokensPrompt, g.Data.Credits)
	if g.Data.Status != "cancelled" || g.Data.TokensPrompt < int64(most) || g.Data.Credits < promptCredits*int64(most) {
		t.Fatalf("generation %+v: below the tokenizers' %d prompt tokens", g.Data, most)
	}
}
