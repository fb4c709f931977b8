package openai

import "github.com/shlyuz/shlyuz/internal/jsonscan"

// What the adapter asks of a JSON value span that internal/jsonscan found
// (its JSON strings it writes with plainjson.AppendString).

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
