package http

import (
	"bytes"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz/internal/jsonscan"
)

// canonicalString reports whether the string literal lit (of a validated
// body) is what encoding/json writes for the text it stands for (HTML left
// unescaped): escapes only \" \\ \b \f \n \r \t (jsonscan.ShortString, 64
// bytes at a time: code has one every few bytes, too many for a search
// restarted after each), and plain text (plainText).
func canonicalString(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' {
		return false
	}
	end, short, err := jsonscan.ShortString(lit, 0)
	return err == nil && end == len(lit) && short && plainText(lit[1:end-1])
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
