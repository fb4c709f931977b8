package tokens

import (
	_ "embed"
	"encoding/binary"
	"math/bits"
	"strings"
)

// Words that cost one token in every tokenizer the reserve bounds. A
// byte-level BPE (o200k, cl100k, Claude's) first cuts a text into
// pre-tokens by a regular expression (runs of letters, with one space or
// mark before them; runs of digits; runs of punctuation; whitespace), then
// encodes each; a pre-token that is in its vocabulary is that one token.
// Gemini's SentencePiece cuts no pre-tokens (its merges may only join more)
// but takes every digit alone, so a run of digits saves nothing.
// wordSavings finds the runs of ASCII letters and of ASCII punctuation that
// every one of those expressions cuts out whole, whatever surrounds them,
// and that every vocabulary has (estimate_words.txt, proven token by token
// by TestWordTable): each costs one token, not a token a byte. Everything
// else keeps its token a byte.

//go:embed estimate_words.txt
var wordFile string

// wordMax is the longest entry the table holds, in bytes.
const wordMax = 16

// wordTable is an open-addressed set of the table's entries, each packed
// into a word or two (zero padded: no entry has a zero byte): the entries
// of eight bytes or fewer (most, and most looked up) apart, in half a
// megabyte, so that a look-up misses the processor's caches less.
var wordTable = func() (t struct {
	short               []uint64
	long                [][2]uint64
	shortBits, longBits uint
}) {
	var short []uint64
	var long [][2]uint64
	for _, e := range wordEntries() {
		k := packWord([]byte(e))
		if len(e) <= 8 {
			short = append(short, k[0])
		} else {
			long = append(long, k)
		}
	}
	t.short, t.shortBits = make([]uint64, tableSize(len(short))), tableBits(len(short))
	t.long, t.longBits = make([][2]uint64, tableSize(len(long))), tableBits(len(long))
	for _, k := range short {
		i := hashShort(k, t.shortBits)
		for t.short[i] != 0 && t.short[i] != k {
			i = (i + 1) & uint64(len(t.short)-1)
		}
		t.short[i] = k
	}
	for _, k := range long {
		i := hashLong(k, t.longBits)
		for t.long[i] != ([2]uint64{}) && t.long[i] != k {
			i = (i + 1) & uint64(len(t.long)-1)
		}
		t.long[i] = k
	}
	return t
}()

// tableBits is the bits of a table's index for n entries: at most half full
// (then a look-up probes about two slots at most).
func tableBits(n int) uint {
	b := uint(1)
	for 1<<b < 2*n {
		b++
	}
	return b
}

func tableSize(n int) int { return 1 << tableBits(n) }

func hashShort(k uint64, bits uint) uint64 { return (k * 0x9E3779B97F4A7C15) >> (64 - bits) }

func hashLong(k [2]uint64, bits uint) uint64 {
	return (k[0]*0x9E3779B97F4A7C15 ^ k[1]*0xC2B2AE3D27D4EB4F) >> (64 - bits)
}

// wordEntries are the lines of the table (its first line is a comment), a
// tab in a line standing for a newline.
func wordEntries() []string {
	lines := strings.Split(strings.TrimSuffix(wordFile, "\n"), "\n")[1:]
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, "\t", "\n")
	}
	return lines
}

func packWord(b []byte) [2]uint64 {
	var buf [16]byte
	copy(buf[:], b)
	return [2]uint64{binary.LittleEndian.Uint64(buf[:8]), binary.LittleEndian.Uint64(buf[8:])}
}

// lookupWord reports whether b (at most wordMax bytes) is in the table.
func lookupWord(b []byte) bool {
	n := len(b)
	if n > wordMax || n == 0 {
		return false
	}
	if n <= 8 {
		var k uint64
		if cap(b) >= 8 { // read in place, the bytes past b masked off
			k = binary.LittleEndian.Uint64(b[:8:8]) & (^uint64(0) >> (64 - 8*n))
		} else {
			k = packWord(b)[0]
		}
		t := wordTable.short
		for i := hashShort(k, wordTable.shortBits); ; i = (i + 1) & uint64(len(t)-1) {
			switch t[i] {
			case k:
				return true
			case 0:
				return false
			}
		}
	}
	var k [2]uint64
	if cap(b) >= 16 { // read in place, the bytes past b masked off
		b16 := b[:16:16]
		k[0], k[1] = binary.LittleEndian.Uint64(b16[:8]), binary.LittleEndian.Uint64(b16[8:])&(^uint64(0)>>(128-8*n))
	} else {
		k = packWord(b)
	}
	t := wordTable.long
	for i := hashLong(k, wordTable.longBits); ; i = (i + 1) & uint64(len(t)-1) {
		switch t[i] {
		case k:
			return true
		case [2]uint64{}:
			return false
		}
	}
}

// The kinds of character wordSavings tells apart.
const (
	wOther   = iota // a byte above 0x7F, a \u escape (whatever it stands for), \b, \f: nothing a word may end at
	wLetter         // ASCII letters
	wPunct          // ASCII punctuation: printable, neither letter, digit nor space
	wSpace          // ' '
	wNewline        // '\n'
	wDigit          // ASCII digits
	wBlank          // the other ASCII controls: tab, '\r'
)

// isPunct reports whether c is ASCII punctuation.
func isPunct(c byte) bool { return wordKind[c] == wPunct }

var wordKind = func() (t [256]uint8) {
	for c := range 0x80 {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			t[c] = wLetter
		case c >= '0' && c <= '9':
			t[c] = wDigit
		case c == ' ':
			t[c] = wSpace
		case c == '\n':
			t[c] = wNewline
		case c > ' ' && c < 0x7F:
			t[c] = wPunct
		default:
			t[c] = wBlank
		}
	}
	return t
}()

// wordSavings is how many tokens less than a token a byte the text of body
// (a JSON string's body as it is written, escapes and all) costs, by the
// pre-tokens it finds that every pre-tokenizer cuts out whole, whatever
// surrounds them, each costing runCost:
//
//   - a space and the run of ASCII letters after it; the run alone after a
//     newline, after two punctuation marks or after a space and one (which
//     every pre-tokenizer takes as one pre-token ending where the letters
//     begin); a punctuation mark and the run after a letter, digit or
//     newline (o200k and cl100k take both as one pre-token, Claude's the
//     mark alone, then the run: the greater of the two costs). The run must
//     be followed by an ASCII character that is neither a letter nor an
//     apostrophe (a letter, a mark or "'s" after it would join it), and be
//     upper case then lower (o200k cuts "getUser" in two);
//   - a run of newlines then spaces between characters that are not
//     whitespace, but for its last space (spaceSavings);
//   - a run of punctuation marks, with the space before it if there is one
//     and a letter or digit if not, followed by a letter or digit (two
//     marks at least: o200k and cl100k join one mark to the letters after
//     it) or a space.
//
// A run at the body's end, or whose neighbours are not known (a \u escape,
// a character above 0x7F), saves nothing: a string's neighbours in the
// prompt are unknown.
func wordSavings(body []byte) int64 {
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
			j, before := i, uint8(wLetter) // before: the kind of the character before the run's last
			for {
				for j+8 <= len(body) { // eight at a time, as a machine word
					n, up, low := letters8(binary.LittleEndian.Uint64(body[j:]))
					if up != 0 && lower || up&-(low&-low<<1) != 0 { // an upper-case letter after a lower
						cased = false
					}
					lower = lower || low != 0
					j += n
					if n < 8 {
						break
					}
				}
				for ; j < len(body) && wordKind[body[j]] == wLetter; j++ {
					if body[j] <= 'Z' {
						cased = cased && !lower
					} else {
						lower = true
					}
				}
				if j > i {
					before = wLetter
				}
				// A space then a letter, prose's commonest turn, or a mark
				// then those (", ", ". "), read here as the
				// character-at-a-time path below reads them: the run ends (it
				// saves what letterSavings finds), a mark alone saves
				// nothing, nor does whatever whitespace or punctuation was
				// being read, and a run after a space begins.
				mark := j+2 < len(body) && wordKind[body[j]] == wPunct && body[j] != '\'' && body[j] != '\\' && body[j+1] == ' '
				if mark && wordKind[body[j+2]] != wLetter || !mark && (j+1 >= len(body) || body[j] != ' ' || wordKind[body[j+1]] != wLetter) {
					break
				}
				if cased {
					saved += letterSavings(body, runStart, j, runCtx, runPrefix)
				}
				if mark {
					punct[0], nm = body[j], 1
					j++
				}
				runStart, runCtx, runPrefix = j+1, wSpace, 0
				lower, cased = body[j+1] > 'Z', true
				np, nl, sp = -1, -1, 1
				j += 2
				i, before = j, wSpace
			}
			prev2, c1, i = before, body[j-1], j
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
					saved += int64(np) - runCost(punct[:np])
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
				saved += letterSavings(body, runStart, i, runCtx, runPrefix)
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
					saved += int64(np) - runCost(punct[:np])
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
			saved += spaceSavings(nl, sp)
			nl = -1
		default:
			nl = -1
		}
		prev2, prev1, c1 = prev1, k, c
		i += size
	}
	return saved
}

// letters8 reads the eight bytes of x (little endian) as wordSavings'
// letter runs do: n is how many ASCII letters x starts with, up and low
// have the high bit of each byte of them that is upper and lower case.
func letters8(x uint64) (n int, up, low uint64) {
	a := x &^ highBits
	y := a | lowBits*0x20                                        // lower case
	l := (y + lowBits*0x1F) & (lowBits*0xFA - y) & highBits &^ x // 'a'..'z', 'A'..'Z'; not above 0x7F
	run := ^uint64(0)
	if rest := ^l & highBits; rest != 0 {
		run = rest&-rest - 1
		n = bits.TrailingZeros64(rest) / 8
	} else {
		n = 8
	}
	l &= run
	low = l & (x << 2) // bit 5 of each byte at its high bit: lower case
	return n, l &^ low, low
}

// letterSavings is what the run of letters body[start:end], ended as
// wordSavings reads it, saves by what was before it (ctx): a space, nothing
// it joins (wNewline), or the punctuation mark prefix.
func letterSavings(body []byte, start, end int, ctx uint8, prefix byte) int64 {
	switch ctx {
	case wSpace:
		return int64(end-start+1) - runCost(body[start-1:end])
	case wNewline:
		return int64(end-start) - runCost(body[start:end])
	case wPunct:
		var buf [64]byte
		if end-start >= len(buf) {
			return 0
		}
		buf[0] = prefix
		n := 1 + copy(buf[1:], body[start:end])
		return int64(n) - max(runCost(buf[:n]), 1+runCost(body[start:end]))
	}
	return 0
}

// spaceSavings is what a run of nl newlines then sp ≥ 2 spaces saves,
// between ASCII characters that are not whitespace: all but its last space
// (which joins what follows) is one pre-token in Claude's tokenizer; o200k
// and cl100k cut its newlines (alone, or joined to punctuation before them)
// from its spaces.
func spaceSavings(nl, sp int) int64 {
	if nl+sp-1 > wordMax {
		return 0
	}
	return spaceSaved[nl][sp]
}

// spaceSaved is spaceSavings of every run short enough to save, worked
// out once: code indented with spaces has one on most of its lines.
var spaceSaved = func() (t [wordMax + 1][wordMax + 2]int64) {
	for nl := range t {
		for sp := 2; nl+sp-1 <= wordMax; sp++ {
			t[nl][sp] = whitespaceSavings(nl, sp)
		}
	}
	return t
}()

// whitespaceSavings is spaceSavings of a run of at most wordMax+1
// characters, worked out from the word table.
func whitespaceSavings(nl, sp int) int64 {
	n := nl + sp - 1
	var buf [wordMax]byte
	for j := range n {
		buf[j] = ' '
		if j < nl {
			buf[j] = '\n'
		}
	}
	return int64(n) - max(runCost(buf[:n]), int64(nl)+runCost(buf[nl:n]))
}

// widePunct is the punctuation mark above 0x7F that b starts with, when it
// is one of those English text uses most (dashes, curly quotes, an arrow):
// every pre-tokenizer reads it as it reads ASCII punctuation, and NFKC
// leaves it as it is. nil for any other.
func widePunct(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xE2 && (b[1] == 0x80 && (b[2] == 0x93 || b[2] == 0x94 || b[2] == 0x99 || b[2] == 0x9C || b[2] == 0x9D) || b[1] == 0x86 && b[2] == 0x92) {
		return b[:3]
	}
	return nil
}

// wideRune is widePunct of the character r, for one written as a \u escape.
func wideRune(r rune) []byte {
	for _, w := range wideMarks {
		if w.r == r {
			return w.utf8
		}
	}
	return nil
}

var wideMarks = func() (m [6]struct {
	r    rune
	utf8 []byte
}) {
	for i, r := range "–—’“”→" {
		m[i/3].r, m[i/3].utf8 = r, []byte(string(r))
	}
	return m
}()

// runCost bounds the tokens of a pre-token of ASCII letters (with a space
// before them or not): one when the table has it; else, when the table has
// every pair of adjacent characters in it, and every three, at most
// ⌊(n+1)/2⌋ for n characters; when it has every pair, ⌊(2n+1)/3⌋; else n.
// A BPE merges adjacent parts while their join is a token: when every pair
// is one, no two single characters stay side by side in what it ends with;
// when every three are too, no single character stays beside a part of
// two. So what stays beside a single character is three characters long at
// least, and k parts of n characters have 2k ≤ n+1 (TestRunCost checks
// the bound against the tokenizers on every word of a dictionary).
func runCost(seg []byte) int64 {
	n := int64(len(seg))
	if n <= 1 || n == 2 && pairHeld(seg[0], seg[1]) || n > 2 && lookupWord(seg) {
		return min(n, 1)
	}
	for j := 0; j+2 <= len(seg); j++ {
		if !pairHeld(seg[j], seg[j+1]) {
			return n
		}
	}
	for j := 0; j+3 <= len(seg); j++ {
		if !tripleHeld(seg[j : j+3]) {
			return (2*n + 1) / 3
		}
	}
	return (n + 1) / 2
}

// pairHeld is lookupWord of the two bytes a, b: a bit each of a 8 KB map,
// not a probe of the table (runCost asks it of every two adjacent
// characters of a run the table does not hold).
func pairHeld(a, b byte) bool {
	i := uint(a)<<8 | uint(b)
	return wordSmall.pairs[i/64]>>(i%64)&1 != 0
}

// tripleHeld is lookupWord of the three bytes t: a bit each of a 32 KB map
// when they are all letters, spaces or newlines (most of those runCost
// asks), else the table's.
func tripleHeld(t []byte) bool {
	a, b, c := tripleCode[t[0]], tripleCode[t[1]], tripleCode[t[2]]
	if a|b|c >= 64 {
		return lookupWord(t[:3])
	}
	i := uint(a)<<12 | uint(b)<<6 | uint(c)
	return wordSmall.triples[i/64]>>(i%64)&1 != 0
}

// tripleCode numbers the bytes tripleHeld maps, from 0 (64 and above for
// the rest).
var tripleCode = func() (t [256]uint8) {
	for i := range t {
		t[i] = 255
	}
	n := uint8(0)
	for c := range 256 {
		if wordKind[c] == wLetter || c == ' ' || c == '\n' {
			t[c] = n
			n++
		}
	}
	return t
}()

// wordSmall maps the table's entries of two bytes, and of three of
// tripleCode's.
var wordSmall = func() (m struct {
	pairs   [1 << 16 / 64]uint64
	triples [1 << 18 / 64]uint64
}) {
	for _, e := range wordEntries() {
		switch {
		case len(e) == 2:
			i := uint(e[0])<<8 | uint(e[1])
			m.pairs[i/64] |= 1 << (i % 64)
		case len(e) == 3 && tripleCode[e[0]]|tripleCode[e[1]]|tripleCode[e[2]] < 64:
			i := uint(tripleCode[e[0]])<<12 | uint(tripleCode[e[1]])<<6 | uint(tripleCode[e[2]])
			m.triples[i/64] |= 1 << (i % 64)
		}
	}
	return m
}()
