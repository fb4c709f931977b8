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

// readObject reads the object data, the whole of it, in one validating pass
// (jsonscan, as strict as encoding/json's own check): member is given each
// member's key and value span in turn, and false from it, invalid JSON or
// anything after the object is false.
func readObject(data []byte, member func(key, v []byte) bool) bool {
	it, ok := jsonscan.ValidMembers(data, 0, 1)
	if !ok {
		return false
	}
	for {
		key, _, vs, ve, more := it.Next()
		if !more {
			break
		}
		if !member(key, data[vs:ve]) {
			return false
		}
	}
	return it.Err() == nil && jsonscan.SkipSpace(data, it.End()) == len(data)
}
