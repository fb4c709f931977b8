package api

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The members every chat request carries (model, max_tokens, stream) are
// read here without encoding/json: a decoding target passed as any escapes
// to the heap, and json.Unmarshal's own state costs more than the value. A
// value these do not read exactly as encoding/json would (an escaped string,
// a number with a fraction or an exponent, one too long to be sure it fits)
// goes to Field, whose result and error message are the answer.

// StringField is Field for a string member: "" when absent or null.
func StringField(fields map[string]json.RawMessage, name string) (string, *shlyuz.Error) {
	raw, ok := fields[name]
	if !ok || IsNull(raw) {
		return "", nil
	}
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		s := raw[1 : len(raw)-1]
		if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
			return string(s), nil
		}
	}
	var v string
	err := Field(fields, name, &v)
	return v, err
}

// IntField is Field for an integer member: set is false when absent or null.
func IntField(fields map[string]json.RawMessage, name string) (n int64, set bool, err *shlyuz.Error) {
	raw, ok := fields[name]
	if !ok || IsNull(raw) {
		return 0, false, nil
	}
	if n, ok := smallInt(raw); ok {
		return n, true, nil
	}
	var v *int64
	if err := Field(fields, name, &v); err != nil || v == nil {
		return 0, false, err
	}
	return *v, true, nil
}

// BoolField is Field for a boolean member into *into, left as it is when
// absent or null.
func BoolField(fields map[string]json.RawMessage, name string, into *bool) *shlyuz.Error {
	switch raw, ok := fields[name]; {
	case !ok:
		return nil
	case string(raw) == "true":
		*into = true
		return nil
	case string(raw) == "false":
		*into = false
		return nil
	}
	return Field(fields, name, into)
}

// smallInt reads an integer of at most 18 digits (so it cannot overflow an
// int64), optionally negative, as JSON writes it; ok is false for anything else.
func smallInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
