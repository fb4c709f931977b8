package http

import (
	"bytes"
	"unicode/utf8"
)

// verbatimString reports whether the string literal lit (of a validated
// body) may be copied into a request for the upstream as it stands, as
// readValue tells it of a value of the body.
func verbatimString(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' {
		return false
	}
	end, verbatim, ok := readValue(lit, 0)
	return ok && verbatim && end == len(lit)
}

// verbatimText reports whether a literal's text (between its quotes, of a
// validated body) means what the full decode would write for it: valid
// UTF-8 (the full decode replaces a bad byte with U+FFFD) and, unless short
// says it has no \u escape (jsonscan.ShortString), no escaped half of a
// surrogate pair alone (which the full decode replaces too, and a strict
// upstream refuses). Any other escape stands for what it decodes to,
// whether a client wrote é or \u00e9, < or \u003c (Go's encoding/json and
// the Stainless SDKs escape HTML; Python's json.dumps escapes all but
// ASCII).
func verbatimText(text []byte, short bool) bool {
	return utf8.Valid(text) && (short || pairedSurrogates(text))
}

// pairedSurrogates reports whether every \u escape of a surrogate half in
// text (a literal's text, its escapes well formed) is a high half followed
// at once by an escaped low half.
func pairedSurrogates(text []byte) bool {
	for i := 0; ; {
		k := bytes.IndexByte(text[i:], '\\')
		if k < 0 {
			return true
		}
		i += k
		if i+1 >= len(text) {
			return true // a validated literal ends no escape here
		}
		if text[i+1] != 'u' {
			i += 2
			continue
		}
		r := hex4(text[i+2:])
		switch {
		case r < 0xD800 || r > 0xDFFF:
			i += 6
		case r <= 0xDBFF && i+11 < len(text) && text[i+6] == '\\' && text[i+7] == 'u':
			if lo := hex4(text[i+8:]); lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 12
		default:
			return false
		}
	}
}

// hex4 is the value of the four hex digits at the start of b (a validated
// \u escape's).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
