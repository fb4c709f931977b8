package tokens

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTextTokensASCIIEscapes: \u escapes of ASCII characters (every one, in
// both cases of hex, alone and inside runs of their class), which the bulk
// path reads, and the \u escapes it stops at (above 0x7F, broken, cut by
// the string's end), at every offset to the blocks, count as the
// reference does.
func TestTextTokensASCIIEscapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 128))
	var pieces []string
	for c := range 0x80 {
		pieces = append(pieces, fmt.Sprintf(`\u%04x`, c), fmt.Sprintf(`\u%04X`, c))
	}
	others := []string{`\u0080`, `\u00ff`, `\u0436`, `\u00g0`, `\u007`, `\u`, `\ud83d\ude80`, `\\u0041`, `\n`, `\"`,
		"a", "abcdefghijklmnop", "7", "123", " ", "    ", ".", "ж"}
	for n := range 3_000 {
		var b strings.Builder
		b.WriteString(strings.Repeat("a", n%64)) // every offset to the blocks
		for size := 64 + rng.IntN(700); b.Len() < size; {
			if rng.IntN(3) == 0 {
				b.WriteString(others[rng.IntN(len(others))])
			} else {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		if n%5 == 0 {
			b.WriteString(`\u00`) // cut by the string's end
		}
		lit := []byte(`"` + b.String() + `"`)
		r, l := textTokens(lit)
		wr, wl := referenceTextTokens(lit)
		if r != wr || l != wl {
			t.Fatalf("textTokens(%q) = %d, %d; the reference counts %d, %d", lit, r, l, wr, wl)
		}
	}
}

// TestClassifyBlocksAsRuns: the platform's classifyBlocks gives, block by
// block, runsOf of the portable classification, up to and with the first
// block runsOf says ends the run, at most blockBatch blocks and as many as
// the input holds.
func TestClassifyBlocksAsRuns(t *testing.T) { checkClassifyBlocks(t) }

// checkClassifyBlocks compares classifyBlocks with runsOf(classifyWords) on
// 20,000 inputs of one to six blocks.
func checkClassifyBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 6))
	alphabet := []byte("aZq09 \t\n\\\"/.,!~`@[{_utrnbfU\x7f\x01\x1f\x20\x80\xff\xd0\xb6")
	for i := range 20_000 {
		b := make([]byte, 64*(1+rng.IntN(6))+rng.IntN(64))
		for j := range b {
			switch {
			case i%3 == 0:
				b[j] = byte(rng.IntN(256))
			case i%3 == 1:
				b[j] = alphabet[rng.IntN(len(alphabet))]
			default: // plain text, a stop rare
				b[j] = "the cat sat, 42 times\\n"[rng.IntN(23)]
				if rng.IntN(300) == 0 {
					b[j] = alphabet[rng.IntN(len(alphabet))]
				}
			}
		}
		var got [blockBatch]blockRuns
		n := classifyBlocks(b, &got)
		want := 0
		for want < min(len(b)/64, blockBatch) {
			var k blockMasks
			var r blockRuns
			classifyWords((*[64]byte)(b[64*want:]), &k)
			stops := runsOf(&k, &r)
			if want < n && got[want] != r {
				t.Fatalf("classifyBlocks(%q): block %d is %+v; runsOf(classifyWords) gives %+v", b, want, got[want], r)
			}
			want++
			if stops {
				break
			}
		}
		if n != want {
			t.Fatalf("classifyBlocks(%q) = %d blocks; want %d", b, n, want)
		}
	}
}
