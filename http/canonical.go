package http

import (
	"bytes"
	"unicode/utf8"
)

// canonicalString reports whether the string literal lit (of a validated
// body) is what encoding/json writes for the text it stands for (HTML left
// unescaped), as readValue tells it of a value of the body.
func canonicalString(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' {
		return false
	}
	end, canon, ok := readValue(lit, 0)
	return ok && canon && end == len(lit)
}

// plainText reports whether s is valid UTF-8 without U+2028 and U+2029
// (which encoding/json escapes): utf8.Valid's pass of ASCII words, and the
// two separators looked for only where their lead byte 0xE2 is.
func plainText(s []byte) bool {
	if !utf8.Valid(s) {
		return false
	}
	return bytes.IndexByte(s, 0xE2) < 0 || !bytes.Contains(s, []byte("\u2028")) && !bytes.Contains(s, []byte("\u2029"))
}
