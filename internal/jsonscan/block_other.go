//go:build !amd64 || purego

package jsonscan

// stringBlocks is the offset of the first 64-byte block of s that holds a
// quote, a backslash or a control character, with that block's masks of
// each (a bit per byte); when no whole block is left before one is found,
// off is where fewer than 64 bytes remain, and the masks are 0.
func stringBlocks(s []byte) (off int, q, bs, ctl uint64) { return stringBlocksWords(s) }

// validBlocks is stringBlocks here: validStringBlocks reads each escape.
func validBlocks(s []byte) (off int, q, bs, ctl uint64) { return stringBlocksWords(s) }
