//go:build amd64 && !purego

package shlyuz

import "math/bits"

// classifyBlock gives one bit per byte of b for Latin letters, digits,
// spaces and backslashes, up to m, the first byte the bulk path stops at
// (≥ 0x80 or < 0x20; 64 when none). On amd64 SSE2 (which every amd64 CPU
// has) classifies sixteen bytes per instruction: classify64, in
// estimate_classify_amd64.s.
func classifyBlock(b *[64]byte) (lat, dig, spc, esc uint64, m int) {
	lat, dig, spc, esc, hard := classify64(b)
	if hard == 0 {
		return lat, dig, spc, esc, 64
	}
	m = bits.TrailingZeros64(hard)
	keep := uint64(1)<<m - 1
	return lat & keep, dig & keep, spc & keep, esc & keep, m
}

// classify64 returns the class masks of the 64 bytes at b, and hard: the
// bytes ≥ 0x80 or < 0x20.
//
//go:noescape
func classify64(b *[64]byte) (lat, dig, spc, esc, hard uint64)
