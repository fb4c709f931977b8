package openai

import "github.com/shlyuz/shlyuz/internal/jsonscan"

// What the adapter asks of a JSON value span that internal/jsonscan found,
// and how it writes a JSON string.

// isNull reports whether the value span is the literal null.
func isNull(v []byte) bool { return len(v) == 4 && string(v) == "null" }

// nonEmptyString reports whether v is a JSON string with at least one character.
func nonEmptyString(v []byte) bool { return len(v) > 2 && v[0] == '"' }

// nonEmptyArray reports whether v is a JSON array with at least one element.
func nonEmptyArray(v []byte) bool {
	if len(v) < 2 || v[0] != '[' {
		return false
	}
	return jsonscan.SkipSpace(v, 1) < len(v)-1
}

// appendJSONString appends s as a JSON string literal.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
