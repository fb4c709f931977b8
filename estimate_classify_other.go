//go:build !amd64 || purego

package shlyuz

// classifyBlock fills k with the class masks of the 64 bytes at b.
func classifyBlock(b *[64]byte, k *blockMasks) { classifyWords(b, k) }
