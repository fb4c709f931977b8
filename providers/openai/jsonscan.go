package openai

import (
	"bytes"
	"errors"
)

// A minimal JSON scanner for the hot path. It walks the members of an object
// and the elements of an array and reports the byte spans of their values, so
// that a chunk can be rewritten by splicing bytes instead of decoding and
// re-encoding it. It checks the structure (balanced brackets, terminated
// strings, known literals) but does not validate string escapes or numbers in
// detail: the bytes it passes on are the upstream's own.

var errBadJSON = errors.New("malformed JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string that opens at b[i] == '"'.
// It jumps from quote to quote with IndexByte, which measured faster than a
// byte loop even for the short strings of a chunk.
func skipString(b []byte, i int) (int, error) {
	i++
	start := i
	for i <= len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			break
		}
		end := i + j
		// An odd run of backslashes before the quote escapes it.
		n := 0
		for k := end - 1; k >= start && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return end + 1, nil
		}
		i = end + 1
	}
	return 0, errBadJSON
}

// skipValue returns the index just past the value that starts at b[i] (no
// leading space).
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errBadJSON
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		return skipContainer(b, i)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(b) {
			c := b[j]
			if (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
				j++
				continue
			}
			break
		}
		return j, nil
	}
	return 0, errBadJSON
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errBadJSON
	}
	return i + len(lit), nil
}

// skipContainer skips an object or array by counting brackets outside strings.
func skipContainer(b []byte, i int) (int, error) {
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
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return 0, errBadJSON
}

// objIter walks the members of the object that starts at b[start] == '{'.
type objIter struct {
	b     []byte
	i     int
	first bool
	err   error
}

func newObjIter(b []byte, start int) (objIter, bool) {
	start = skipSpace(b, start)
	if start >= len(b) || b[start] != '{' {
		return objIter{}, false
	}
	return objIter{b: b, i: start + 1, first: true}, true
}

// next returns the raw key (without quotes), the key's start offset, and the
// span of the value; ok is false at the end of the object or on an error (it.err).
func (it *objIter) next() (key []byte, keyStart, vs, ve int, ok bool) {
	b := it.b
	i := skipSpace(b, it.i)
	if i >= len(b) {
		it.err = errBadJSON
		return nil, 0, 0, 0, false
	}
	if b[i] == '}' {
		it.i = i + 1
		return nil, 0, 0, 0, false
	}
	if !it.first {
		if b[i] != ',' {
			it.err = errBadJSON
			return nil, 0, 0, 0, false
		}
		i = skipSpace(b, i+1)
	}
	it.first = false
	if i >= len(b) || b[i] != '"' {
		it.err = errBadJSON
		return nil, 0, 0, 0, false
	}
	keyStart = i
	ke, err := skipString(b, i)
	if err != nil {
		it.err = err
		return nil, 0, 0, 0, false
	}
	key = b[i+1 : ke-1]
	i = skipSpace(b, ke)
	if i >= len(b) || b[i] != ':' {
		it.err = errBadJSON
		return nil, 0, 0, 0, false
	}
	vs = skipSpace(b, i+1)
	ve, err = skipValue(b, vs)
	if err != nil {
		it.err = err
		return nil, 0, 0, 0, false
	}
	it.i = ve
	return key, keyStart, vs, ve, true
}

// end is the offset just past the closing brace, valid after next returned ok == false without error.
func (it *objIter) end() int { return it.i }

// arrIter walks the elements of the array that starts at b[start] == '['.
type arrIter struct {
	b     []byte
	i     int
	first bool
	err   error
}

func newArrIter(b []byte, start int) (arrIter, bool) {
	if start >= len(b) || b[start] != '[' {
		return arrIter{}, false
	}
	return arrIter{b: b, i: start + 1, first: true}, true
}

func (it *arrIter) next() (vs, ve int, ok bool) {
	b := it.b
	i := skipSpace(b, it.i)
	if i >= len(b) {
		it.err = errBadJSON
		return 0, 0, false
	}
	if b[i] == ']' {
		it.i = i + 1
		return 0, 0, false
	}
	if !it.first {
		if b[i] != ',' {
			it.err = errBadJSON
			return 0, 0, false
		}
		i = skipSpace(b, i+1)
	}
	it.first = false
	ve, err := skipValue(b, i)
	if err != nil {
		it.err = err
		return 0, 0, false
	}
	it.i = ve
	return i, ve, true
}

// isNull reports whether the value span is the literal null.
func isNull(v []byte) bool { return len(v) == 4 && string(v) == "null" }

// nonEmptyString reports whether v is a JSON string with at least one character.
func nonEmptyString(v []byte) bool { return len(v) > 2 && v[0] == '"' }

// nonEmptyArray reports whether v is a JSON array with at least one element.
func nonEmptyArray(v []byte) bool {
	if len(v) < 2 || v[0] != '[' {
		return false
	}
	return skipSpace(v, 1) < len(v)-1
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
