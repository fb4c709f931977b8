package tokens

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz/internal/jsonscan"
)

// referenceTextTokens is textTokens as it was before the bulk path: a
// character at a time, each run costed when it ends. textTokens must count
// exactly as it does. The reserve is the bound: an ASCII character a byte
// (escaped or not), any other its UTF-8 or its NFKC form's, the more, less
// what wordSavings finds.
func referenceTextTokens(lit []byte) (reserve, likely int64) {
	if len(lit) < 2 || lit[0] != '"' {
		return 0, 0
	}
	var bound int64
	defer func() { // less what the words save (textSavings: proven against the tokenizers, not here)
		reserve = bound - textSavings(lit[1:len(lit)-1])
		likely = min(likely, reserve)
	}()
	var run charClass
	var n, bytes int64
	flush := func() {
		switch run {
		case classLatin:
			reserve += (n + 2) / 3
			likely += (n + 3) / 4
		case classDigit:
			reserve += n
			likely += (n + 2) / 3
		case classCyrill:
			reserve += (n + 1) / 2
			likely += (n + 2) / 3
		case classSpace:
			if n > 1 {
				reserve += (n + 2) / 4
				likely += (n + 2) / 4
			}
		case classLetter:
			reserve += max(n, (bytes+1)/2)
			likely += n
		case classSymbol:
			reserve += bytes
			likely += n
		}
		run, n, bytes = classNone, 0, 0
	}
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		if r == '\\' && i+1 < len(body) {
			r, size = unescape(body[i:], true)
		}
		i += size
		if r < utf8.RuneSelf {
			bound++
		} else {
			bound += max(runeBytes(r), nfkcBytes(r))
		}
		c := classOf(r)
		if c == classNone {
			flush()
			reserve++
			likely++
			continue
		}
		if c != run {
			flush()
			run = c
		}
		n++
		bytes += runeBytes(r)
	}
	flush()
	return reserve, likely
}

func TestGatherPacksHighBits(t *testing.T) {
	for v := range 256 {
		var x uint64
		for i := range 8 {
			if v>>i&1 != 0 {
				x |= 0x80 << (8 * i)
			}
		}
		if got := gather(x); got != uint64(v) {
			t.Fatalf("gather(%#x) = %#x, want %#x", x, got, v)
		}
	}
}

// textAlphabets are the pieces random texts are made of: runs of each class
// at every length around the block size, escapes, non-ASCII letters, symbols.
var textAlphabets = []string{"a", "Z", "q", "7", "0", " ", "  ", "\t", ".", ",", "!", "\"", "\\", "/", "\x7f", "\x01",
	"ж", "Ж", "日本", "α", "✅", "🚀", "\xff", `\n`, `\t`, `\"`, `\\`, `\u0436`, `\ud83d\ude80`, `\ud800`, `\b`, `\u12`, `\u00zz`, `\/`, `\r`, `\f`, `\x`, `\ `, `\5`, `\\\n`,
	"\u03ff", "\u0400", "\u04ff", "\u0500", "жжж", `\u03ff`, `\u0400`, `\u04FF`, `\u04ff`, `\u0500`, `\u04g0`, `\u044`, "\xd0", "\xd3\xc0", "\xd3"}

func TestTextTokensCountsAsTheReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 150))
	check := func(body string) {
		lit := []byte(`"` + body + `"`)
		r, l := textTokens(lit)
		wr, wl := referenceTextTokens(lit)
		if r != wr || l != wl {
			t.Fatalf("textTokens(%q) = %d, %d; the reference counts %d, %d", lit, r, l, wr, wl)
		}
	}
	for n := range 200 { // every run length across one and two blocks
		for _, c := range []string{"a", "5", " ", ".", "ж"} {
			check(strings.Repeat(c, n))
			check("x" + strings.Repeat(c, n) + "y")
			check(strings.Repeat("ab ", n/3) + strings.Repeat(c, n))
		}
	}
	for range 20_000 {
		var b strings.Builder
		size := rng.IntN(300)
		for b.Len() < size {
			piece := textAlphabets[rng.IntN(len(textAlphabets))]
			if rng.IntN(3) > 0 { // mostly plain ASCII, in long runs
				piece = textAlphabets[rng.IntN(10)]
				piece = strings.Repeat(piece, 1+rng.IntN(12))
			}
			b.WriteString(piece)
		}
		check(b.String())
	}
	for _, s := range estimateSamples {
		lit, _ := json.Marshal(s.text)
		check(string(lit[1 : len(lit)-1]))
		lit = escapedJSON(s.text)
		check(string(lit[1 : len(lit)-1]))
	}
}

// TestTextTokensEscapeRuns: long texts dense with escapes, runs of
// backslashes and runs of one class around them, at every offset to the
// block boundaries, count as the reference does.
func TestTextTokensEscapeRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(150, 24))
	pieces := []string{`\\`, `\n`, `\n\n`, `\t`, `\r`, `\"`, `\/`, `\b`, `\f`, `\\\\`, `\\\n`, `\u0436`, `\ud83d\ude80`, `\u00`,
		" ", "    ", "a", "abc", "7", "42", ".", "ж", "\x01", `\ `, `\5`, `\x`}
	for range 3_000 {
		var b strings.Builder
		b.WriteString(strings.Repeat("a", rng.IntN(64))) // every offset to the blocks
		size := 64 + rng.IntN(1_500)
		for b.Len() < size {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		lit := []byte(`"` + b.String() + `"`)
		r, l := textTokens(lit)
		wr, wl := referenceTextTokens(lit)
		if r != wr || l != wl {
			t.Fatalf("textTokens(%q) = %d, %d; the reference counts %d, %d", lit, r, l, wr, wl)
		}
	}
}

// TestTextTokensToFindsTheEnd: a JSON string read to its closing quote
// (textTokensTo) counts as the reference counts it and ends where
// jsonscan.SkipString says, whatever follows it (more strings, quotes, the
// end of the input), at every offset of its end to the 64-byte blocks.
func TestTextTokensToFindsTheEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	pieces := []string{"a", "abc ", "  ", "7", ".", `"`, `\`, "\n", "\t\t", "ж", "中", "😀", "\x01", "/", `\"`, `"\`}
	tails := []string{``, `}]`, `,"b":"c"}`, `"`, `\"x"`, strings.Repeat(" ", 70) + `"`}
	for n := range 3_000 {
		var b strings.Builder
		b.WriteString(strings.Repeat("x", n%64)) // every offset of the end
		for size := rng.IntN(400); b.Len() < size; {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		lit, _ := json.Marshal(b.String())
		if n%3 == 0 {
			lit = escapedJSON(b.String())
		}
		wr, wl := referenceTextTokens(lit)
		for _, tail := range tails {
			in := append(slices.Clip(lit), tail...)
			wantEnd, err := jsonscan.SkipString(in, 0)
			r, l, end, ok := textTokensTo(in, 0)
			if err != nil || !ok || end != wantEnd || end != len(lit) || r != wr || l != wl {
				t.Fatalf("textTokensTo(%q) = %d, %d, end %d (%v); the reference counts %d, %d, SkipString ends at %d (%v)",
					in, r, l, end, ok, wr, wl, wantEnd, err)
			}
		}
		if _, _, _, ok := textTokensTo(lit[:len(lit)-1], 0); ok {
			t.Fatalf("textTokensTo(%q) found an end the string does not have", lit[:len(lit)-1])
		}
	}
}

// FuzzTextTokens: whatever the bytes, the bulk path counts as the reference.
func FuzzTextTokens(f *testing.F) {
	for _, s := range []string{`"hello world"`, `"` + strings.Repeat("abc 12, ", 20) + `"`, `"\u0436\n  x"`, `"` + strings.Repeat(" ", 70) + `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		r, l := textTokens(lit)
		wr, wl := referenceTextTokens(lit)
		if r != wr || l != wl {
			t.Fatalf("textTokens(%q) = %d, %d; the reference counts %d, %d", lit, r, l, wr, wl)
		}
		if len(lit) > 0 && lit[0] == '"' {
			tr, tl, end, ok := textTokensTo(lit, 0) // never panics
			// A valid lit is a string, maybe with spaces after it.
			if json.Valid(lit) {
				wantEnd, _ := jsonscan.SkipString(lit, 0)
				wr, wl := referenceTextTokens(lit[:wantEnd])
				if !ok || end != wantEnd || tr != wr || tl != wl {
					t.Fatalf("textTokensTo(%q) = %d, %d, end %d (%v); the reference counts %d, %d to %d", lit, tr, tl, end, ok, wr, wl, wantEnd)
				}
			}
		}
	})
}

// BenchmarkTextTokens compares the bulk count with the reference's character
// at a time, on one run, for the 150 KB context of BenchmarkEstimatePromptSizes.
func BenchmarkTextTokens(b *testing.B) {
	msgs := bigMessages(150_000)
	lit := msgs[strings.LastIndex(string(msgs), `"content":`)+len(`"content":`) : len(msgs)-2]
	for _, impl := range []struct {
		name  string
		count func([]byte) (int64, int64)
	}{{"bulk", textTokens}, {"reference", referenceTextTokens}} {
		b.Run(impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(lit)))
			for b.Loop() {
				impl.count(lit)
			}
		})
	}
}

// checkClassify compares classify with classifyWords on 100,000 blocks.
func checkClassify(t *testing.T, classify func(*[64]byte, *blockMasks)) {
	rng := rand.New(rand.NewPCG(64, 24))
	alphabet := []byte("aZq09 \t\n\\\"/.,!~`@[{_utrnbfU\x7f\x01\x1f\x20\x80\xff\xd0\xb6\xdc\xf5\xee\xf4\xa0\xdc")
	var b [64]byte
	for i := range 100_000 {
		for j := range b {
			if i%2 == 0 {
				b[j] = byte(rng.IntN(256))
			} else {
				b[j] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		if i%7 == 0 { // mostly plain text, a stop late or none
			for j := range b {
				b[j] = "the cat sat, 42 times\\n"[rng.IntN(23)]
			}
			if rng.IntN(2) == 0 {
				b[rng.IntN(64)] = 0x80
			}
		}
		var got, want blockMasks
		classify(&b, &got)
		classifyWords(&b, &want)
		if want.esc == 0 { // u and ntr are read only for a block with a backslash
			got.u, got.ntr, want.u, want.ntr = 0, 0, 0, 0
		}
		if got != want {
			t.Fatalf("classify(%q) = %+v; classifyWords gives %+v", b, got, want)
		}
	}
}

// TestUnescapeHex: a \u escape is read as strconv reads its four hex digits,
// every byte tried at every place; any other byte there is a broken escape.
func TestUnescapeHex(t *testing.T) {
	for v := range 0x10000 {
		for _, f := range []string{"%04x", "%04X"} {
			esc := []byte(`\u` + fmt.Sprintf(f, v))
			if r, n := unescape(esc, false); r != rune(v) || n != 6 {
				t.Fatalf("unescape(%s) = %U, %d; want %U, 6", esc, r, n, v)
			}
		}
	}
	for place := 2; place < 6; place++ {
		for c := range 256 {
			esc := []byte(`\u0000`)
			esc[place] = byte(c)
			want, wantN := rune(utf8.RuneError), 2
			if v, err := strconv.ParseUint(string(esc[2:]), 16, 32); err == nil {
				want, wantN = rune(v), 6
			}
			if r, n := unescape(esc, false); r != want || n != wantN {
				t.Fatalf("unescape(%q) = %U, %d; want %U, %d", esc, r, n, want, wantN)
			}
		}
	}
}
