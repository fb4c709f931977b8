package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// A long string is read 64 bytes at a time (stringBlocks): the block's
// quotes, backslashes and control characters as bit masks, and its escapes
// found from them at once, not one scan restarted after each escape.

// stringBlocksWords is stringBlocks in portable Go, eight bytes at a time.
func stringBlocksWords(s []byte) (off int, q, bs, ctl uint64) {
	for ; off+64 <= len(s); off += 64 {
		for w := 0; w < 8; w++ {
			x := binary.LittleEndian.Uint64(s[off+w*8:])
			a := x &^ highBits
			keep := ^x & highBits // a byte above 0x7F is none of the three
			q |= gather(^((a^lowBits*'"')+lowBits*0x7F)&keep) << (8 * w)
			bs |= gather(^((a^lowBits*'\\')+lowBits*0x7F)&keep) << (8 * w)
			ctl |= gather(^(a+lowBits*0x60)&keep) << (8 * w)
		}
		if q|bs|ctl != 0 {
			return off, q, bs, ctl
		}
	}
	return off, 0, 0, 0
}

// gather packs the high bits of x's eight bytes into the low eight bits.
func gather(x uint64) uint64 { return ((x >> 7) * 0x0102040810204080) >> 56 }

// oddBits are the bits at odd positions.
const oddBits = 0xAAAAAAAAAAAAAAAA

// blockEscapes reads the backslashes of a block that no escape enters from
// before it: the backslashes that escape the byte after them (an odd run
// escapes, as simdjson finds it with the borrow of a subtraction) and the
// bytes they escape (a bit past the block when its last byte escapes).
func blockEscapes(bs uint64) (escaping, escaped uint64) {
	code := ((bs<<1 | oddBits) - bs) ^ oddBits
	return code & bs, code ^ bs
}

// validStringBlocks reads the whole blocks of the string body at b[i:] (i
// past its opening quote, or where no escape enters) and checks them as
// validString does: no control character, only known escapes. It returns
// the end just past the closing quote, or done false and where the rest
// begins: fewer than 64 bytes before the end of b, at no escape's middle;
// err is ErrMalformed where it finds the string broken.
func validStringBlocks(b []byte, i int) (end int, done bool, err error) {
	for len(b)-i >= 64 {
		off, q, bs, ctl := validBlocks(b[i:])
		i += off
		if q|bs|ctl == 0 {
			break
		}
		escaping, escaped := blockEscapes(bs)
		stop := q&^escaped | ctl
		upto := escaping
		if stop != 0 {
			upto &= 1<<bits.TrailingZeros64(stop) - 1
		}
		for e := upto; e != 0; e &= e - 1 {
			j := i + bits.TrailingZeros64(e)
			if !validEscape(b, j) {
				return 0, false, ErrMalformed
			}
		}
		if stop != 0 {
			j := i + bits.TrailingZeros64(stop)
			if b[j] != '"' {
				return 0, false, ErrMalformed // a raw control character
			}
			return j + 1, true, nil
		}
		i += 64 - int(escaping>>63)
	}
	return i, false, nil
}

// validEscape reports whether the escape whose backslash is b[j] is one
// encoding/json knows.
func validEscape(b []byte, j int) bool {
	if j+1 >= len(b) {
		return false
	}
	switch escapeLen[b[j+1]] {
	case 2:
		return true
	case 6:
		return j+6 <= len(b) && isHex(b[j+2]) && isHex(b[j+3]) && isHex(b[j+4]) && isHex(b[j+5])
	}
	return false
}
