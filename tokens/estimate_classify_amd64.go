//go:build amd64 && !purego

package tokens

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 picks the AVX2 routines, 32 bytes per instruction, where the CPU
// has it; SSE2 (which every amd64 CPU has, classify64) classifies sixteen.
var useAVX2 = cpu.X86.HasAVX2

// classifyBlocks fills rs with the masks blocks reads of the 64-byte blocks
// at the start of b (len(b) ≥ 64): at most len(rs) and as many as b holds
// whole, up to and with the first with a stop or an escaped 'u'; it returns
// how many. It is one call of classifyBlocksAVX2, or calls of classify64 and
// runsOf a block where the CPU has no AVX2.
func classifyBlocks(b []byte, rs *[blockBatch]blockRuns) int {
	if useAVX2 {
		return classifyBlocksAVX2(unsafe.SliceData(b), min(len(b)>>6, blockBatch), &rs[0])
	}
	for j := range rs {
		if len(b) < 64*(j+1) {
			return j
		}
		var k blockMasks
		classify64((*[64]byte)(b[64*j:]), &k)
		if r := &rs[j]; runsOf(&k, r) {
			return j + 1
		}
	}
	return len(rs)
}

// classify64 is classifyWords with SSE2.
//
//go:noescape
func classify64(b *[64]byte, k *blockMasks)

// classifyBlocksAVX2 is classifyBlocks of the n blocks at b (n ≥ 1), each
// block's runsOf in one go, with AVX2: it fills r[0], r[1], … and returns
// how many.
//
//go:noescape
func classifyBlocksAVX2(b *byte, n int, r *blockRuns) int
