//go:build amd64 && !purego

package shlyuz

import "golang.org/x/sys/cpu"

// useAVX2 picks classify64AVX2, 32 bytes per instruction, where the CPU has
// it; SSE2 (which every amd64 CPU has) classifies sixteen.
var useAVX2 = cpu.X86.HasAVX2

// classifyBlock fills k with the class masks of the 64 bytes at b:
// classify64 or classify64AVX2, in estimate_classify_amd64.s, chosen there
// (classify64Auto) so that this inlines into the block loop.
func classifyBlock(b *[64]byte, k *blockMasks) { classify64Auto(b, k) }

// classify64Auto is classify64AVX2 where useAVX2 is set, else classify64.
//
//go:noescape
func classify64Auto(b *[64]byte, k *blockMasks)

// classify64 is classifyWords with SSE2.
//
//go:noescape
func classify64(b *[64]byte, k *blockMasks)

// classify64AVX2 is classifyWords with AVX2.
//
//go:noescape
func classify64AVX2(b *[64]byte, k *blockMasks)
