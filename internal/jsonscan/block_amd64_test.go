//go:build amd64 && !purego

package jsonscan

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// stringBlocksVariants are the forms of stringBlocks this CPU runs.
var stringBlocksVariants = func() []func([]byte) (int, uint64, uint64, uint64) {
	v := []func([]byte) (int, uint64, uint64, uint64){stringBlocksSSE2}
	if cpu.X86.HasAVX2 {
		v = append(v, stringBlocksAVX2)
	}
	return v
}()

// TestStringBlocksWithoutAVX2 runs the long-string tests on the SSE2 path,
// whatever this CPU has.
func TestStringBlocksWithoutAVX2(t *testing.T) {
	defer func(was bool) { useAVX2 = was }(useAVX2)
	useAVX2 = false
	TestStringBlocksAsByteLoops(t)
	TestValidStringCodeLike(t)
	TestValidStringAtEveryOffset(t)
}
