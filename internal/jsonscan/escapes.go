package jsonscan

import "math/bits"

// ShortEscapes reports whether every escape of s, the body of a valid
// string literal (between its quotes), is one of \" \\ \b \f \n \r \t: the
// ones encoding/json writes itself (it writes no \/, and \u only for what
// these do not cover). It reads 64 bytes at a time (stringBlocks): the
// escapes of a block are found from its backslashes at once, however many
// there are, not one search restarted after each.
func ShortEscapes(s []byte) bool {
	i := 0
	for len(s)-i >= 64 {
		off, _, bs, _ := stringBlocks(s[i:])
		i += off
		if len(s)-i < 64 {
			break
		}
		if bs == 0 { // a block with a quote or a control character only
			i += 64
			continue
		}
		escaping, escaped := blockEscapes(bs)
		for e := escaped; e != 0; e &= e - 1 {
			if c := s[i+bits.TrailingZeros64(e)]; c == '/' || c == 'u' {
				return false
			}
		}
		i += 64 - int(escaping>>63) // an escape cut by the block's end begins the next one
	}
	for ; i < len(s); i++ {
		if s[i] == '\\' {
			if i+1 >= len(s) || s[i+1] == '/' || s[i+1] == 'u' {
				return false
			}
			i++
		}
	}
	return true
}
