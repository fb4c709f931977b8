package http

import (
	"bytes"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz/internal/jsonscan"
)

// canonicalString reports whether the string literal lit (of a validated
// body) is what encoding/json writes for the text it stands for (HTML left
// unescaped): valid UTF-8 without U+2028 and U+2029, escapes only \" \\ \b
// \f \n \r \t. Each check is a pass at memory speed: the escapes 64 bytes at
// a time (jsonscan.ShortEscapes; code has one every few bytes, too many for
// a search restarted after each), UTF-8 by utf8.Valid's ASCII words, and
// the two separators only where their lead byte 0xE2 is.
func canonicalString(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' {
		return false
	}
	s := lit[1 : len(lit)-1]
	if !jsonscan.ShortEscapes(s) || !utf8.Valid(s) {
		return false
	}
	return bytes.IndexByte(s, 0xE2) < 0 || !bytes.Contains(s, []byte("\u2028")) && !bytes.Contains(s, []byte("\u2029"))
}
