//go:build !amd64 || purego

package shlyuz

// classifyBlock gives one bit per byte of b for Latin letters, digits,
// spaces and backslashes, up to m, the first byte the bulk path stops at
// (≥ 0x80 or < 0x20; 64 when none).
func classifyBlock(b *[64]byte) (lat, dig, spc, esc uint64, m int) { return classifyWords(b) }
