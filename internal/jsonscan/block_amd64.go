//go:build amd64 && !purego

package jsonscan

import "golang.org/x/sys/cpu"

// stringBlocks is the offset of the first 64-byte block of s that holds a
// quote, a backslash or a control character, with that block's masks of
// each (a bit per byte); when no whole block is left before one is found,
// off is where fewer than 64 bytes remain, and the masks are 0. On amd64
// AVX2 tests 32 bytes per instruction where the CPU has it, SSE2 (which
// every amd64 CPU has) sixteen: block_amd64.s.
func stringBlocks(s []byte) (off int, q, bs, ctl uint64) {
	if useAVX2 {
		return stringBlocksAVX2(s)
	}
	return stringBlocksSSE2(s)
}

var useAVX2 = cpu.X86.HasAVX2

// validBlocks is stringBlocks that passes over the blocks whose only stops
// are escapes validString accepts without reading further (\" \\ \/ \b \f
// \n \r \t), for a string no escape enters; an escape cut by a block's end
// begins the next block. Only with AVX2 (validBlocksAVX2); SSE2 returns each
// block with a stop.
func validBlocks(s []byte) (off int, q, bs, ctl uint64) {
	if useAVX2 {
		return validBlocksAVX2(s)
	}
	return stringBlocksSSE2(s)
}

//go:noescape
func validBlocksAVX2(s []byte) (off int, q, bs, ctl uint64)

//go:noescape
func stringBlocksAVX2(s []byte) (off int, q, bs, ctl uint64)

//go:noescape
func stringBlocksSSE2(s []byte) (off int, q, bs, ctl uint64)
