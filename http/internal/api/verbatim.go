package api

import (
	"bytes"
	"unicode/utf8"
)

// VerbatimString reports whether the string literal lit (of a validated
// body) may be copied into a request for the upstream as it stands, as
// readValue tells it of a value of the body.
func VerbatimString(lit []byte) bool {
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
// upstream refuses) and no \u0008 or \u000c (noLongControl). Any other escape stands for what it decodes to,
// whether a client wrote é or \u00e9, < or \u003c (Go's encoding/json and
// the Stainless SDKs escape HTML; Python's json.dumps escapes all but
// ASCII).
func verbatimText(text []byte, short bool) bool {
	return utf8.Valid(text) && (short || pairedSurrogates(text) && noLongControl(text))
}

// noLongControl reports whether text has no \u0008 or \u000c escape: the
// gateway's encoder writes those two as \b and \f, which the estimate reads
// as letters (as the full decode's output would be counted), \u0008 as a
// control character; such a text goes the full way, so that both ways count
// it alike. Go before 1.22 wrote them so; hardly anything else does.
func noLongControl(text []byte) bool {
	for i := 0; ; {
		k := bytes.Index(text[i:], []byte(`\u000`))
		if k < 0 {
			return true
		}
		i += k
		if i+6 <= len(text) && escapeAt(text, i) {
			if c := text[i+5]; c == '8' || c == 'c' || c == 'C' {
				return false
			}
		}
		i += 2
	}
}

// pairedSurrogates reports whether every \u escape of a surrogate half in
// text (a literal's text, its escapes well formed) is a high half followed
// at once by an escaped low half. Surrogate halves are \uD800 to \uDFFF:
// it looks for `\ud` and `\uD` only (bytes.Index, many bytes at a time),
// not stopping at the \n, \" or \u003c a client's text has every few bytes.
func pairedSurrogates(text []byte) bool {
	return pairedHalves(text, `\ud`) && pairedHalves(text, `\uD`)
}

// pairedHalves is pairedSurrogates for the escapes that start with needle.
func pairedHalves(text []byte, needle string) bool {
	for i := 0; ; {
		k := bytes.Index(text[i:], []byte(needle))
		if k < 0 {
			return true
		}
		i += k
		if !escapeAt(text, i) || i+6 > len(text) {
			i += 2 // an escaped backslash, then a u
			continue
		}
		switch r := hex4(text[i+2:]); {
		case r < 0xD800: // \uD000 to \uD7FF: no surrogate
			i += 6
		case r <= 0xDBFF: // a high half: a low one follows
			if i+12 > len(text) || text[i+6] != '\\' || text[i+7] != 'u' {
				return false
			}
			if lo := hex4(text[i+8:]); lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 12
		default: // a low half: a high one comes just before
			if i < 6 || text[i-6] != '\\' || text[i-5] != 'u' || !escapeAt(text, i-6) {
				return false
			}
			if hi := hex4(text[i-4:]); hi < 0xD800 || hi > 0xDBFF {
				return false
			}
			i += 6
		}
	}
}

// escapeAt reports whether the backslash at text[i] opens an escape: an odd
// run of backslashes ends there.
func escapeAt(text []byte, i int) bool {
	run := 1
	for j := i - 1; j >= 0 && text[j] == '\\'; j-- {
		run++
	}
	return run%2 == 1
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
