package jsonscan

import "math/bits"

// ShortString returns the index just past the string literal that opens at
// b[i] == '"' (of a validated body: it does not check the escapes' form),
// and whether every escape in it is one of \" \\ \b \f \n \r \t, the ones
// encoding/json writes itself (it writes no \/, and \u only for what these
// do not cover). It reads 64 bytes at a time (stringBlocks): the escapes of
// a block and the quote that ends the string are found from its masks at
// once, however many escapes there are (code has one every few bytes), not
// by a search restarted after each.
func ShortString(b []byte, i int) (end int, short bool, err error) {
	j, short := i+1, true
	for len(b)-j >= 64 {
		off, q, bs, _ := stringBlocks(b[j:])
		j += off
		if len(b)-j < 64 {
			break
		}
		escaping, escaped := blockEscapes(bs)
		stop := q &^ escaped
		upto := escaped
		if stop != 0 {
			upto &= 1<<bits.TrailingZeros64(stop) - 1
		}
		for e := upto; short && e != 0; e &= e - 1 {
			if c := b[j+bits.TrailingZeros64(e)]; c == '/' || c == 'u' {
				short = false
			}
		}
		if stop != 0 {
			return j + bits.TrailingZeros64(stop) + 1, short, nil
		}
		j += 64 - int(escaping>>63) // an escape cut by the block's end begins the next one
	}
	for ; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, short, nil
		case '\\':
			if j+1 >= len(b) {
				return 0, false, ErrMalformed
			}
			if c := b[j+1]; c == '/' || c == 'u' {
				short = false
			}
			j++
		}
	}
	return 0, false, ErrMalformed
}
