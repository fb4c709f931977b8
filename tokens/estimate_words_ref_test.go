package tokens

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// The word look-up as it was first written, kept as the oracle of the
// faster one: the same scan, a character at a time, its table a Go set of
// estimate_words.txt's lines. TestWordSavingsMatchesReference and
// FuzzWordSavingsMatchesReference hold wordSavings to it byte for byte.

var refWords = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, e := range wordEntries() {
		set[e] = true
	}
	return set
})

func refLookupWord(b []byte) bool { return len(b) <= wordMax && refWords()[string(b)] }

func refWordSavings(body []byte) int64 {
	var saved int64
	prev1, prev2 := uint8(wOther), uint8(wOther) // the kinds of the two characters before
	var c1 byte                                  // the character before, as it stands
	runStart := -1                               // where the letter run being read starts
	runCtx := uint8(wOther)                      // the kind of the character before the run
	var runPrefix byte                           // that character, when a punctuation mark
	lower, cased := false, true                  // the run has had a lower-case letter; it is upper case then lower
	var punct [wordMax]byte                      // the punctuation run being read, in UTF-8, its space first
	np, nm := -1, 0                              // its bytes, -1 when it saves nothing whatever follows; its characters
	nl, sp := -1, 0                              // the newlines and spaces of the whitespace run being read; nl -1 when it saves nothing
	for i := 0; i < len(body); {
		c := body[i]
		k := wordKind[c]
		if k == wLetter && prev1 == wLetter { // the rest of a run of letters, read at once: most of a text
			j := i
			for ; j < len(body) && wordKind[body[j]] == wLetter; j++ {
				if body[j] <= 'Z' {
					cased = cased && !lower
				} else {
					lower = true
				}
			}
			prev2, c1, i = wLetter, body[j-1], j
			continue
		}
		size := 1
		var wide []byte // a punctuation mark above 0x7F (c is then 0), in UTF-8
		if c >= 0x80 {
			if w := widePunct(body[i:]); w != nil {
				wide, k, size, c = w, wPunct, len(w), 0
			}
		}
		if c == '\\' && i+1 < len(body) {
			size = 2
			switch e := body[i+1]; e {
			case 'n':
				c, k = '\n', wNewline
			case 't', 'r':
				c, k = e, wBlank
			case 'u': // an ASCII character but a letter reads as written plain (writers escape '<' and '&'); others as any above 0x7F
				var r rune
				r, size = unescape(body[i:], true)
				c, k = 0, wOther
				if r < 0x80 && wordKind[r] != wLetter {
					c, k = byte(r), wordKind[r]
				}
				if w := wideRune(r); w != nil {
					wide, k = w, wPunct
				}
			case 'b', 'f':
				c, k = 0, wOther
			default:
				c, k = e, wordKind[e]
			}
		}
		if k == wLetter {
			if prev1 != wLetter {
				runStart, lower, cased = i, false, true
				runCtx, runPrefix = wOther, 0
				switch {
				case prev1 == wSpace:
					runCtx = wSpace
				case prev1 == wNewline, prev1 == wPunct && (prev2 == wPunct || prev2 == wSpace):
					runCtx = wNewline // alone
				case prev1 == wPunct && c1 != '\'' && c1 != 0 && (prev2 == wLetter || prev2 == wDigit || prev2 == wNewline):
					runCtx, runPrefix = wPunct, c1
				}
				if nm > 1 && np > 0 {
					saved += int64(np) - refRunCost(punct[:np])
				}
				np = -1
			}
			if c <= 'Z' {
				cased = cased && !lower
			} else {
				lower = true
			}
		} else {
			if prev1 == wLetter && cased && k != wOther && c != '\'' {
				saved += refLetterSavings(body, runStart, i, runCtx, runPrefix)
			}
			switch {
			case k == wPunct && prev1 != wPunct:
				np, nm = -1, 0
				switch {
				case prev1 == wLetter && c != '\'', prev1 == wDigit:
					np = 0
				case prev1 == wSpace:
					np, nm, punct[0] = 1, 1, ' '
				}
				fallthrough
			case k == wPunct:
				switch {
				case np < 0:
				case wide != nil && np+len(wide) <= wordMax:
					np += copy(punct[np:], wide)
					nm++
				case wide == nil && np < wordMax:
					punct[np] = c
					np++
					nm++
				default:
					np = -1
				}
			case (k == wDigit || k == wSpace) && prev1 == wPunct:
				if np > 0 {
					saved += int64(np) - refRunCost(punct[:np])
				}
				np = -1
			default:
				np = -1
			}
		}
		switch {
		case k == wNewline || k == wSpace:
			switch {
			case prev1 == wLetter || prev1 == wDigit || prev1 == wPunct:
				nl, sp = 0, 0
			case nl < 0 || k == wNewline && sp > 0: // newlines after spaces: not the shape read
				nl = -1
			}
			if k == wNewline {
				nl++
			} else {
				sp++
			}
		case nl >= 0 && sp >= 2 && (k == wLetter || k == wDigit || k == wPunct):
			saved += refSpaceSavings(nl, sp)
			nl = -1
		default:
			nl = -1
		}
		prev2, prev1, c1 = prev1, k, c
		i += size
	}
	return saved
}

// refLetterSavings is what the run of letters body[start:end], ended as
// refWordSavings reads it, saves by what was before it (ctx): a space, nothing
// it joins (wNewline), or the punctuation mark prefix.
func refLetterSavings(body []byte, start, end int, ctx uint8, prefix byte) int64 {
	switch ctx {
	case wSpace:
		return int64(end-start+1) - refRunCost(body[start-1:end])
	case wNewline:
		return int64(end-start) - refRunCost(body[start:end])
	case wPunct:
		var buf [64]byte
		if end-start >= len(buf) {
			return 0
		}
		buf[0] = prefix
		n := 1 + copy(buf[1:], body[start:end])
		return int64(n) - max(refRunCost(buf[:n]), 1+refRunCost(body[start:end]))
	}
	return 0
}

// refSpaceSavings is what a run of nl newlines then sp ≥ 2 spaces saves,
// between ASCII characters that are not whitespace: all but its last space
// (which joins what follows) is one pre-token in Claude's tokenizer; o200k
// and cl100k cut its newlines (alone, or joined to punctuation before them)
// from its spaces.
func refSpaceSavings(nl, sp int) int64 {
	n := nl + sp - 1
	if n > wordMax {
		return 0
	}
	var buf [wordMax]byte
	for j := range n {
		buf[j] = ' '
		if j < nl {
			buf[j] = '\n'
		}
	}
	return int64(n) - max(refRunCost(buf[:n]), int64(nl)+refRunCost(buf[nl:n]))
}

func refRunCost(seg []byte) int64 {
	n := int64(len(seg))
	if n <= 1 || refLookupWord(seg) {
		return min(n, 1)
	}
	for j := 0; j+2 <= len(seg); j++ {
		if !refLookupWord(seg[j : j+2]) {
			return n
		}
	}
	for j := 0; j+3 <= len(seg); j++ {
		if !refLookupWord(seg[j : j+3]) {
			return (2*n + 1) / 3
		}
	}
	return (n + 1) / 2
}

// wordSavingsCorpus is string bodies (as written in JSON, escapes and all)
// built to reach every branch of the scan: words of the table and out of
// it, of every case and length, between every kind of neighbour, escaped
// and not, cut at any byte.
func wordSavingsCorpus(n int) [][]byte {
	entries := wordEntries()
	r := rand.New(rand.NewPCG(3, 5))
	frags := []string{" ", "  ", "   ", "    ", `\n`, `\n\n`, `\n  `, `\n\n    `, " \\n", `\t`, `\r\n`, `\b`, `\f`, ". ", ", ", ".", ",", "'", "'s ", "'S",
		"_", "-", "(", " (", `\")`, `\":\"`, `\",\"`, `\":{\"`, `\"`, `\\`, `\/`, "é", "\u0301", "ж", "中", "1", "42 ", "123456", " 7",
		"—", " — ", "–", "’", "“", "”", "→", "…", `\u2014`, `\u2019s`, `\u201c`, `\u2192`, `\u0041`, `\u0061b`, `\u003c`, `\u0026`, `\u0020`,
		`\u000a`, `\u0436`, `\ud83d\ude00`, `\ud83d`, `\u00`, `\u`, `\x`, "`", "**", "...", "/", "!?", "$", "{", "}", "[", "]", "::", "->", "=>",
		"\xe2\x80", "\xe2", "\x80", "\x00", "\t", "\n", "\u00a0", "ﬁ", "0x1F", "v1.2.3", "!!!!!!!!!!!!!!!!!!!!", ".................", " ====", "\\\\\\", strings.Repeat("abc", 25), strings.Repeat(" ", 20), strings.Repeat(`\n`, 9) + strings.Repeat(" ", 9)}
	word := func() string {
		switch r.IntN(7) {
		case 5, 6: // a case turned anywhere in a long run: "wordsAndMore", "HTTPServer", "aaaaaaaaaB"
			w := []byte(strings.Repeat("a", r.IntN(4)) + strings.TrimLeft(entries[r.IntN(len(entries))], " ") + strings.Repeat("b", r.IntN(12)))
			for range 1 + r.IntN(2) {
				w[r.IntN(len(w))] &^= 0x20
			}
			if r.IntN(2) == 0 {
				return strings.ToUpper(string(w[:r.IntN(len(w))])) + string(w)
			}
			return string(w)
		case 0, 1:
			return entries[r.IntN(len(entries))]
		case 2:
			w := strings.TrimLeft(entries[r.IntN(len(entries))], " ")
			if w == "" {
				return w
			}
			return strings.ToUpper(w[:1]) + w[1:]
		case 3:
			w := strings.TrimLeft(entries[r.IntN(len(entries))], " ")
			return strings.ToUpper(w)
		}
		var b strings.Builder
		for range 1 + r.IntN(20) {
			c := byte('a' + r.IntN(26))
			if r.IntN(4) == 0 {
				c -= 'a' - 'A'
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	out := make([][]byte, 0, n)
	for len(out) < n {
		var b strings.Builder
		size := r.IntN(400)
		for b.Len() < size {
			for range r.IntN(3) {
				b.WriteString(word())
			}
			for range 1 + r.IntN(2) {
				b.WriteString(frags[r.IntN(len(frags))])
			}
		}
		s := b.String()
		out = append(out, []byte(s))
		if s != "" {
			out = append(out, []byte(s[:r.IntN(len(s))]), []byte(s[r.IntN(len(s)):]))
		}
	}
	return out
}

// TestWordSavingsMatchesReference: wordSavings finds what the scan it was
// first written as finds, on the corpus, on the benchmarks' texts and on
// the reserve tests' samples, as written and \u-escaped, and on every
// stretch of them that starts or ends anywhere.
func TestWordSavingsMatchesReference(t *testing.T) {
	bodies := wordSavingsCorpus(20000)
	lit := func(raw []byte) []byte { return raw[1 : len(raw)-1] }
	msgs := bigMessages(20_000)
	bodies = append(bodies, msgs, lit(escapedJSON(benchPromptText+benchPromptText)))
	for _, s := range estimateSamples {
		plain, _ := json.Marshal(s.text)
		bodies = append(bodies, lit(plain), lit(escapedJSON(s.text)))
	}
	for i := 0; i+300 < len(msgs); i += 97 {
		bodies = append(bodies, msgs[i:i+1+i%300])
	}
	for _, body := range bodies {
		if got, want := wordSavings(body), refWordSavings(body); got != want {
			t.Fatalf("wordSavings(%q) = %d, the reference %d", body, got, want)
		}
		// a copy at the end of its buffer: no look-up reads past it
		exact := append([]byte(nil), body...)[:len(body):len(body)]
		if got, want := wordSavings(exact), refWordSavings(exact); got != want {
			t.Fatalf("wordSavings(%q) without room after it = %d, the reference %d", body, got, want)
		}
	}
}

// FuzzWordSavingsMatchesReference: wordSavings is the reference's on any
// bytes.
func FuzzWordSavingsMatchesReference(f *testing.F) {
	for _, b := range wordSavingsCorpus(200) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := wordSavings(body), refWordSavings(body); got != want {
			t.Fatalf("wordSavings(%q) = %d, the reference %d", body, got, want)
		}
	})
}

// TestSmallWordsMaps: pairHeld and tripleHeld are the table's answer for
// every two bytes, and every three of letters, spaces, newlines and a few
// others.
func TestSmallWordsMaps(t *testing.T) {
	for a := range 256 {
		for b := range 256 {
			if got, want := pairHeld(byte(a), byte(b)), refLookupWord([]byte{byte(a), byte(b)}); got != want {
				t.Fatalf("pairHeld(%q) = %v, held %v", []byte{byte(a), byte(b)}, got, want)
			}
		}
	}
	var alphabet []byte
	for c := range 128 {
		if wordKind[c] != wBlank && wordKind[c] != wDigit || c == '\n' {
			alphabet = append(alphabet, byte(c))
		}
	}
	alphabet = append(alphabet, '\t', 0xE2, 0x80)
	held := 0
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				tr := []byte{a, b, c}
				got, want := tripleHeld(tr), refLookupWord(tr)
				if got != want {
					t.Fatalf("tripleHeld(%q) = %v, held %v", tr, got, want)
				}
				held += int(b2i(want))
			}
		}
	}
	if held < 1000 {
		t.Fatalf("only %d triples held", held)
	}
}
