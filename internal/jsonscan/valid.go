package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// MaxDepth is encoding/json's nesting limit.
const MaxDepth = 10000

// ValidValue returns the index just past the value at b[i] (no leading
// space) if it is valid as encoding/json's checkValid reads it: strings
// without raw control characters and with known escapes (any bytes above
// 0x7F pass, as there), numbers by the grammar, the three literals, nesting
// up to MaxDepth. depth is the nesting of a container opening at b[i] (1 for
// a whole document).
func ValidValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, ErrMalformed
	}
	switch c := b[i]; {
	case c == '"':
		return validString(b, i)
	case c == '{':
		it, ok := ValidMembers(b, i, depth)
		for ok {
			_, _, _, _, ok = it.Next()
		}
		return it.finish()
	case c == '[':
		it, ok := ValidElements(b, i, depth)
		for ok {
			_, _, ok = it.Next()
		}
		return it.finish()
	case c == 't' || c == 'f' || c == 'n':
		return literal(b, i)
	case c == '-' || c >= '0' && c <= '9':
		return validNumber(b, i)
	}
	return 0, ErrMalformed
}

// validString returns the index just past the string that opens at
// b[i] == '"'. It jumps to the next quote (IndexByte) and checks the bytes
// before it eight at a time for a backslash or a control character.
func validString(b []byte, i int) (int, error) {
	i++
	end := -1 // the next quote at or after i, once found
	for {
		if end < i {
			q := bytes.IndexByte(b[i:], '"')
			if q < 0 {
				return 0, ErrMalformed
			}
			end = i + q
		}
		j := i + plainLen(b[i:end])
		if j == end {
			return end + 1, nil
		}
		if b[j] != '\\' || j+1 >= len(b) {
			return 0, ErrMalformed // a raw control character
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i = j + 2
		case 'u':
			if j+6 > len(b) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
				return 0, ErrMalformed
			}
			i = j + 6
		default:
			return 0, ErrMalformed
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

// validNumber returns the index past the number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, ErrMalformed
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return 0, ErrMalformed
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, ErrMalformed
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
			return 0, ErrMalformed
		}
		i = j
	}
	return i, nil
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
