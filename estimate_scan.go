package shlyuz

import (
	"bytes"
	"errors"
)

// A walker over a messages array for EstimatePrompt: it finds each message's
// content and each part's type and text without decoding the rest, jumping
// over strings from quote to quote. It checks the structure (brackets, strings,
// literals) but not every number and escape: the body it reads was validated
// when the request was parsed. Anything it is not sure of as encoding/json
// would read it (an escaped or non-ASCII key, a value of the wrong type) makes
// it give up, and EstimatePrompt asks encoding/json.

var errWalk = errors.New("not walked")

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index just past the string that opens at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	start := i + 1
	for i++; i <= len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			break
		}
		end := i + j
		n := 0 // an odd run of backslashes before the quote escapes it
		for k := end - 1; k >= start && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return end + 1, nil
		}
		i = end + 1
	}
	return 0, errWalk
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errWalk
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				j, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = j
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, nil
	}
	return 0, errWalk
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errWalk
	}
	return i + len(lit), nil
}

// walkArray calls each for the span of every element of the array at b[i]
// (after spaces) and returns the index past it.
func walkArray(b []byte, i int, each func(v []byte) error) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return 0, errWalk
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := skipValue(b, i)
		if err != nil {
			return 0, err
		}
		if err := each(b[i:end]); err != nil {
			return 0, err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, errWalk
		}
		switch b[i] {
		case ']':
			return i + 1, nil
		case ',':
			i = skipSpace(b, i+1)
		default:
			return 0, errWalk
		}
	}
}

// walkObject calls each for every member of the object v (a whole value,
// from '{' to '}') with the raw key and the value's span.
func walkObject(v []byte, each func(key, val []byte) error) error {
	i := skipSpace(v, 1)
	if i < len(v) && v[i] == '}' {
		return nil
	}
	for {
		if i >= len(v) || v[i] != '"' {
			return errWalk
		}
		ke, err := skipString(v, i)
		if err != nil {
			return err
		}
		key := v[i+1 : ke-1]
		i = skipSpace(v, ke)
		if i >= len(v) || v[i] != ':' {
			return errWalk
		}
		vs := skipSpace(v, i+1)
		ve, err := skipValue(v, vs)
		if err != nil {
			return err
		}
		if err := each(key, v[vs:ve]); err != nil {
			return err
		}
		i = skipSpace(v, ve)
		if i >= len(v) {
			return errWalk
		}
		switch v[i] {
		case '}':
			return nil
		case ',':
			i = skipSpace(v, i+1)
		default:
			return errWalk
		}
	}
}

// keyIs reports whether a raw key names the field name (lower-case ASCII) as
// encoding/json matches it, without case; a key it cannot judge so, with an
// escape or a byte above 0x7F, is an error.
func keyIs(key []byte, name string) (bool, error) {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return false, errWalk
		}
	}
	if len(key) != len(name) {
		return false, nil
	}
	for i, c := range key {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false, nil
		}
	}
	return true, nil
}
