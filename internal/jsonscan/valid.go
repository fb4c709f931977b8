package jsonscan

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
// b[i] == '"'. It reads whole 64-byte blocks while there are
// (validStringBlocks), then jumps from one quote, backslash or control
// character to the next (stringStop) and checks each escape.
func validString(b []byte, i int) (int, error) {
	i++
	if len(b)-i >= 64 {
		end, done, err := validStringBlocks(b, i)
		if done || err != nil {
			return end, err
		}
		i = end
	}
	for {
		j := i + stringStop(b[i:])
		if j >= len(b) || b[j] < 0x20 {
			return 0, ErrMalformed // unterminated, or a raw control character
		}
		if b[j] == '"' {
			return j + 1, nil
		}
		if j+1 >= len(b) {
			return 0, ErrMalformed
		}
		switch escapeLen[b[j+1]] {
		case 2:
			i = j + 2
		case 6:
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
