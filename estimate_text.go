package shlyuz

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// charClass is what a run of characters is made of, for textTokens.
type charClass uint8

const (
	classNone   charClass = iota
	classLatin            // ASCII letters
	classDigit            // ASCII digits
	classCyrill           // Cyrillic letters
	classSpace            // whitespace
	classLetter           // letters of other scripts (CJK, Greek, Arabic, …)
	classSymbol           // anything else: symbols, emoji, marks
)

// textTokens estimates the tokens of a JSON string literal (its escapes read
// as the characters they stand for, so `\u0436` counts as one letter, not six
// bytes) by runs of characters of one kind. reserve is an upper bound for the
// tokenizers the upstreams use: a Latin word at most a token per 3 letters,
// a Cyrillic word one per 2, a digit one each (several tokenizers split
// numbers into digits), punctuation one each, whitespace beyond one space
// one per 4, letters of other scripts one per 2 bytes of UTF-8, symbols and
// emoji one per byte. likely is what ordinary text costs: a token per 4 Latin
// or 3 Cyrillic letters, per 3 digits, per character of other scripts. A
// string that is not a literal counts nothing.
func textTokens(lit []byte) (reserve, likely int64) {
	if len(lit) < 2 || lit[0] != '"' {
		return 0, 0
	}
	var run charClass
	var n, bytes int64 // the current run's characters and UTF-8 bytes
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
		case classSymbol: // a byte-level tokenizer may spend a token per byte
			reserve += bytes
			likely += n
		}
		run, n, bytes = classNone, 0, 0
	}
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		if r == '\\' && i+1 < len(body) {
			r, size = unescape(body[i:])
			if utf16.IsSurrogate(r) && i+size+1 < len(body) && body[i+size] == '\\' {
				if lo, n := unescape(body[i+size:]); utf16.IsSurrogate(lo) {
					r, size = utf16.DecodeRune(r, lo), size+n
				}
			}
		}
		i += size
		c := classOf(r)
		if c == classNone { // ASCII punctuation: a token each
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
		bytes += int64(utf8.RuneLen(r))
	}
	flush()
	return reserve, likely
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
func unescape(b []byte) (rune, int) {
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
		var r rune
		for _, h := range b[2:6] {
			switch {
			case h >= '0' && h <= '9':
				r = r<<4 | rune(h-'0')
			case h >= 'a' && h <= 'f':
				r = r<<4 | rune(h-'a'+10)
			case h >= 'A' && h <= 'F':
				r = r<<4 | rune(h-'A'+10)
			default:
				return utf8.RuneError, 2
			}
		}
		return r, 6 // a surrogate half is joined with the next by the caller
	}
	return rune(b[1]), 2 // \" \\ \/ and the rest stand for one character
}
