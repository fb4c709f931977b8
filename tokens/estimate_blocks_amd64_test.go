//go:build amd64 && !purego

package tokens

import "testing"

// TestClassifyBlocksWithoutAVX2 checks classifyBlocks on the SSE2 path,
// whatever this CPU has.
func TestClassifyBlocksWithoutAVX2(t *testing.T) {
	defer func(was bool) { useAVX2 = was }(useAVX2)
	useAVX2 = false
	checkClassifyBlocks(t)
	TestTextTokensASCIIEscapes(t)
}
