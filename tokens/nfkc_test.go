package tokens

import (
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestNFKCBytes: for every code point, the bound counts at least the bytes
// of its NFKC form, as a tokenizer that normalizes first reads it.
func TestNFKCBytes(t *testing.T) {
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if n := int64(len(norm.NFKC.String(string(r)))); n > max(runeBytes(r), nfkcBytes(r)) {
			t.Errorf("U+%04X: NFKC makes %d bytes, the bound counts %d", r, n, max(runeBytes(r), nfkcBytes(r)))
		}
	}
}
