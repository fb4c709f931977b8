package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// stringStopWords is stringStop in portable Go, eight bytes at a time in a
// machine word (bytes above 0x7F are none of the three).
func stringStopWords(s []byte) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		a := x &^ highBits
		bs := ^((a ^ lowBits*'\\') + lowBits*0x7F) // high bit set where a byte is '\'
		qt := ^((a ^ lowBits*'"') + lowBits*0x7F)  // … is '"'
		ctl := ^(a + lowBits*0x60)                 // … is below 0x20
		if m := (bs | qt | ctl) & highBits &^ x; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '\\' || c == '"' {
			return i
		}
	}
	return len(s)
}

// escapeLen is the length of a valid escape by the byte after its backslash
// (a \u escape's four hex digits still to check); 0 for none.
var escapeLen = [256]uint8{'"': 2, '\\': 2, '/': 2, 'b': 2, 'f': 2, 'n': 2, 'r': 2, 't': 2, 'u': 6}
