package http

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf8"
)

// splitObject reads a request body into its top-level members exactly as
// json.Unmarshal into a map[string]json.RawMessage would, in one validating
// pass (validObject) and without decoding any value: the values are spans of
// body itself (capped, so an append copies), which the caller must keep
// unchanged while they are used. A body the pass refuses, or a key it would
// have to unescape, goes to encoding/json, whose result and error message are
// the answer; so an invalid body's 400 says what encoding/json says.
func splitObject(body []byte) (map[string]json.RawMessage, error) {
	var stack [32]member
	if members, ok := validObject(body, stack[:0]); ok {
		fields := make(map[string]json.RawMessage, len(members))
		for _, m := range members {
			fields[string(body[m.ks:m.ke])] = body[m.vs:m.ve:m.ve]
		}
		return fields, nil
	}
	var fields map[string]json.RawMessage
	err := json.Unmarshal(body, &fields)
	return fields, err
}

// member is the span of a key's text (inside its quotes) and of its value.
type member struct{ ks, ke, vs, ve int }

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// validObject reports whether b is one valid JSON object (spaces around it
// allowed) whose keys need no unescaping, and appends its members' spans.
func validObject(b []byte, members []member) ([]member, bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	s := scanner{b: b}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return members, skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		ke, ok := s.str(i)
		if !ok {
			return nil, false
		}
		ks, key := i+1, b[i+1:ke-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return nil, false // encoding/json would unescape or mend it
		}
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		vs := skipWS(b, i+1)
		ve, ok := s.value(vs, 2)
		if !ok {
			return nil, false
		}
		members = append(members, member{ks, ke - 1, vs, ve})
		i = skipWS(b, ve)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case '}':
			return members, skipWS(b, i+1) == len(b)
		case ',':
			i = skipWS(b, i+1)
		default:
			return nil, false
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// scanner validates JSON values as encoding/json's checkValid does: strings
// without raw control characters and with known escapes (any bytes above
// 0x7F pass, as there), numbers by the grammar, the three literals, nesting
// up to maxDepth.
type scanner struct{ b []byte }

// value returns the index just past the value at b[i]; depth is the nesting
// of a container opening there.
func (s *scanner) value(i, depth int) (int, bool) {
	b := s.b
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return s.str(i)
	case c == '{':
		return s.object(i, depth)
	case c == '[':
		return s.array(i, depth)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return number(b, i)
	}
	return 0, false
}

func (s *scanner) object(i, depth int) (int, bool) {
	b := s.b
	if depth > maxDepth {
		return 0, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		ke, ok := s.str(i)
		if !ok {
			return 0, false
		}
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		if i, ok = s.value(skipWS(b, i+1), depth+1); !ok {
			return 0, false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i = skipWS(b, i+1)
		default:
			return 0, false
		}
	}
}

func (s *scanner) array(i, depth int) (int, bool) {
	b := s.b
	if depth > maxDepth {
		return 0, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = s.value(i, depth+1); !ok {
			return 0, false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ']':
			return i + 1, true
		case ',':
			i = skipWS(b, i+1)
		default:
			return 0, false
		}
	}
}

// str returns the index just past the string that opens at b[i] == '"'. It
// jumps to the next quote (IndexByte) and checks the bytes before it eight
// at a time for a backslash or a control character.
func (s *scanner) str(i int) (int, bool) {
	b := s.b
	i++
	end := -1 // the next quote at or after i, once found
	for {
		if end < i {
			q := bytes.IndexByte(b[i:], '"')
			if q < 0 {
				return 0, false
			}
			end = i + q
		}
		j := i + plainLen(b[i:end])
		if j == end {
			return end + 1, true
		}
		if b[j] != '\\' || j+1 >= len(b) {
			return 0, false // a raw control character
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i = j + 2
		case 'u':
			if j+6 > len(b) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
				return 0, false
			}
			i = j + 6
		default:
			return 0, false
		}
	}
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// plainLen is the length of s's prefix free of backslashes and control
// characters (bytes below 0x20).
func plainLen(s []byte) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		a := x &^ highBits
		bs := ^((a ^ lowBits*'\\') + lowBits*0x7F)   // high bit set where a byte is '\'
		ctl := ^(a + lowBits*0x60)                   // high bit set where a byte is below 0x20
		if m := (bs | ctl) & highBits &^ x; m != 0 { // bytes above 0x7F are neither
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == '\\' {
			return i
		}
	}
	return len(s)
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// number returns the index past the number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
