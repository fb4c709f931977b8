package tokens

import (
	"bytes"
	"hash/maphash"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// charClass is what a run of characters is made of, for textTokens.
type charClass uint8

const (
	classNone   charClass = iota // ASCII punctuation and control characters: a token each
	classLatin                   // ASCII letters
	classDigit                   // ASCII digits
	classCyrill                  // Cyrillic letters
	classSpace                   // whitespace
	classLetter                  // letters of other scripts (CJK, Greek, Arabic, …)
	classSymbol                  // anything else: symbols, emoji, marks
)

// textTokens estimates the tokens of a JSON string literal. reserve is an
// upper bound for every tokenizer the upstreams use: the bytes of the text
// in UTF-8 (its escapes read as the characters they stand for, so `\u0436`
// counts two bytes, not six), with each character a tokenizer's NFKC
// normalization expands (ligatures, CJK compatibility squares, Arabic
// presentation forms) counted at its expansion's bytes (nfkcBytes). A
// byte-level BPE (OpenAI's, Anthropic's) never spends more than a token a
// byte, nor does a SentencePiece model with byte fallback (GigaChat,
// YandexGPT): no count of the text's shape is a bound, since random letters
// of mixed case, rare CJK or base64 cost up to a token a byte (the reference
// tests measure it). likely is what ordinary text costs, by runs of
// characters of one kind: a token per 4 Latin or 3 Cyrillic letters, per 3
// digits, per character of other scripts. A string that is not a literal
// counts nothing.
//
// Plain ASCII (nothing above 0x7F, no \u escape but of an ASCII character)
// is counted 64 bytes at a time (tally.ascii); the rest a character at a
// time. Both give the same
// count. Text of other scripts (or \u-escaped, as Python's json.dumps sends
// it) has a space or a comma between its words, not a block of ASCII: after
// a character the bulk path stops at, the next few are read one at a time.
func textTokens(lit []byte) (reserve, likely int64) {
	reserve, likely, _ = textTokensSaved(lit)
	return reserve, likely
}

// textTokensSaved is textTokens and what the word table took off the
// reserve (PromptEstimate.Saved).
func textTokensSaved(lit []byte) (reserve, likely, saved int64) {
	if len(lit) < 2 || lit[0] != '"' {
		return 0, 0, 0
	}
	reserve, likely, saved, _ = countText(lit[1:len(lit)-1], false)
	return reserve, likely, saved
}

// textTokensTo is textTokens of the string that opens at b[i] == '"',
// read to its closing quote, which it finds as it counts: its end (past
// that quote) is returned, and ok is false when b has none. The string is
// read once, not skipped to its end first. For valid JSON, as textTokens of
// b[i:end] and jsonscan.SkipString's end.
func textTokensTo(b []byte, i int) (reserve, likely int64, end int, ok bool) {
	reserve, likely, _, end, ok = textTokensSavedTo(b, i)
	return reserve, likely, end, ok
}

// textTokensSavedTo is textTokensTo and what the word table took off the
// reserve.
func textTokensSavedTo(b []byte, i int) (reserve, likely, saved int64, end int, ok bool) {
	body := b[i+1:]
	reserve, likely, saved, n := countText(body, true)
	if n >= len(body) {
		return 0, 0, 0, 0, false
	}
	return reserve, likely, saved, i + 1 + n + 1, true
}

// countText counts body as textTokens does, to its end or, with toQuote, to
// the first quote no escape holds; n is where it stopped. A long text's
// count is remembered (countCache): an agent sends its instructions, tools
// and history again with every call, and finding a text's end and hashing
// it costs a fifth of counting it.
func countText(body []byte, toQuote bool) (reserve, likely, saved int64, n int) {
	span := len(body)
	if toQuote {
		span = quoteAt(body)
	}
	if span < wordsMin {
		return countTextOnce(body, toQuote)
	}
	h := maphash.Bytes(countCache.seed, body[:span])
	if c, ok := countCache.get(h, span); ok {
		return c.reserve, c.likely, c.saved, span
	}
	reserve, likely, saved, n = countTextOnce(body, toQuote)
	if n == span { // where the count stopped is the text hashed (it is, but for a broken escape)
		countCache.put(h, counted{n: n, reserve: reserve, likely: likely, saved: saved})
	}
	return reserve, likely, saved, n
}

// quoteAt is where the first quote of body that no backslash escapes is (an
// odd run of backslashes before a quote escapes it), or -1.
func quoteAt(body []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '"')
		if j < 0 {
			return -1
		}
		q := i + j
		k := q
		for k > 0 && body[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// countTextOnce is countText without the cache.
func countTextOnce(body []byte, toQuote bool) (reserve, likely, saved int64, n int) {
	var t tally
	var adj int64 // the bound less the bytes read: NFKC expansions are longer than their characters' bytes
	slow := 0     // plain characters still to read one at a time
	for i := 0; i < len(body); {
		if slow == 0 {
			if n := t.ascii(body[i:]); n > 0 {
				i += n
				continue
			}
		}
		if n := cyrillicAt(body, i); n > 0 { // a run of Cyrillic letters, as add counts them
			chars := 0
			for ; n > 0; n = cyrillicAt(body, i) {
				i += n
				adj -= int64(n - 2)
				chars++
			}
			t.cyrillic(int64(chars))
			slow = 4
			continue
		}
		if c := body[i]; c >= 0x20 && c < utf8.RuneSelf && c != '\\' {
			if c == '"' && toQuote {
				t.flush()
				saved = textSavings(body[:i])
				reserve = int64(i) + adj - t.escaped - saved
				return reserve, min(t.likely, reserve), saved, i
			}
			t.add(asciiClass[c])
			i++
			slow = max(slow-1, 0)
			continue
		}
		r, size := utf8.DecodeRune(body[i:])
		if r == '\\' && i+1 < len(body) {
			r, size = unescape(body[i:], true)
		}
		if size <= 2 && r < utf8.RuneSelf { // ASCII or an escape the bulk path reads
			slow = max(slow-1, 0)
		} else {
			slow = 4
		}
		if r < utf8.RuneSelf { // an escape of an ASCII character counts the character
			t.escaped += int64(size - 1)
		}
		i += size
		if r >= utf8.RuneSelf { // an ASCII character counts its bytes in the literal, as the bulk path counts it
			adj += max(runeBytes(r), nfkcBytes(r)) - int64(size)
		}
		t.add(classOf(r))
	}
	t.flush()
	saved = textSavings(body)
	reserve = int64(len(body)) + adj - t.escaped - saved
	return reserve, min(t.likely, reserve), saved, len(body)
}

// cyrillicAt is the length of the Cyrillic letter (U+0400 to U+04FF) at
// b[i], two bytes of UTF-8 or a six-byte \u04XX escape; 0 for none.
func cyrillicAt(b []byte, i int) int {
	if i+1 < len(b) && b[i]-0xD0 <= 3 && b[i+1]&0xC0 == 0x80 {
		return 2
	}
	if i+5 < len(b) && b[i] == '\\' && b[i+1] == 'u' && b[i+2] == '0' && b[i+3] == '4' && hexDigit[b[i+4]]|hexDigit[b[i+5]] >= 0 {
		return 6
	}
	return 0
}

// asciiClass is classOf for ASCII.
var asciiClass = func() (t [utf8.RuneSelf]charClass) {
	for c := range t {
		t[c] = classOf(rune(c))
	}
	return t
}()

// runeBytes is r's length in UTF-8; a lone surrogate half counts as the three
// bytes of the U+FFFD it becomes.
func runeBytes(r rune) int64 {
	if n := utf8.RuneLen(r); n > 0 {
		return int64(n)
	}
	return 3
}

// tally counts the tokens of a text a character at a time (add) or a block
// of ASCII at a time (ascii): the likely tokens (the reserve is the
// characters' bytes, less the words', countText). A run of one class costs,
// for its k-th character (k from 0): a Latin letter a token when k%4 == 0
// (so a run of n costs ⌈n/4⌉), a digit one when k%3 == 0, a space one when
// k%4 == 1 (⌊(n+2)/4⌋ for n > 1), punctuation one each. Runs of other
// scripts and of symbols are costed by their length when they end (flush).
type tally struct {
	likely int64
	run    charClass
	n      int64 // the current run's characters
	// escaped is how many bytes longer the escapes of ASCII characters read
	// (`\n`, `\"`, `\u003c`) are than the characters they stand for: the
	// bound counts the character, however the client escaped it (escapes of
	// other characters are adjusted with their NFKC bytes, in countText).
	escaped int64
}

func (t *tally) add(c charClass) {
	if c != t.run {
		t.flush()
		t.run = c
	}
	k := t.n
	switch c {
	case classLatin:
		t.likely += b2i(k%4 == 0)
	case classDigit:
		t.likely += b2i(k%3 == 0)
	case classSpace:
		t.likely += b2i(k%4 == 1)
	case classNone:
		t.likely++
	}
	t.n++
}

// cyrillic is add(classCyrill) n times.
func (t *tally) cyrillic(n int64) {
	if t.run != classCyrill {
		t.flush()
		t.run = classCyrill
	}
	t.n += n
}

func (t *tally) flush() {
	switch t.run {
	case classCyrill:
		t.likely += (t.n + 2) / 3
	case classLetter, classSymbol:
		t.likely += t.n
	}
	t.run, t.n = classNone, 0
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func classOf(r rune) charClass {
	switch {
	case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		return classLatin
	case r >= '0' && r <= '9':
		return classDigit
	case r == ' ' || r == '\n' || r == '\t' || r == '\r':
		return classSpace
	case r < utf8.RuneSelf:
		return classNone
	case r >= 0x0400 && r <= 0x04FF:
		return classCyrill
	case unicode.IsLetter(r):
		return classLetter
	}
	return classSymbol
}

// unescape reads one JSON escape at the start of b (`\n`, `\u0436`) and
// returns the character and the escape's length; a broken escape is U+FFFD.
// With pair, a surrogate half followed by another is read with it as one
// character.
func unescape(b []byte, pair bool) (rune, int) {
	switch b[1] {
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case 'u':
		if len(b) < 6 {
			return utf8.RuneError, len(b)
		}
		h0, h1, h2, h3 := hexDigit[b[2]], hexDigit[b[3]], hexDigit[b[4]], hexDigit[b[5]]
		if h0|h1|h2|h3 < 0 {
			return utf8.RuneError, 2
		}
		r := rune(h0)<<12 | rune(h1)<<8 | rune(h2)<<4 | rune(h3)
		if pair && utf16.IsSurrogate(r) && len(b) > 7 && b[6] == '\\' {
			if lo, n := unescape(b[6:], false); utf16.IsSurrogate(lo) {
				return utf16.DecodeRune(r, lo), 6 + n
			}
		}
		return r, 6
	}
	return rune(b[1]), 2 // \" \\ \/ and the rest stand for one character
}

// hexDigit is the value of a hex digit, -1 for any other byte.
var hexDigit = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := range 10 {
		t['0'+i] = int8(i)
	}
	for i := range 6 {
		t['a'+i], t['A'+i] = int8(10+i), int8(10+i)
	}
	return t
}()
