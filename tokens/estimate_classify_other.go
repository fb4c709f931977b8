//go:build !amd64 || purego

package tokens

// classifyBlocks fills rs with the masks blocks reads of the 64-byte blocks
// at the start of b (len(b) ≥ 64): at most len(rs) and as many as b holds
// whole, up to and with the first with a stop or an escaped 'u'; it returns
// how many.
func classifyBlocks(b []byte, rs *[blockBatch]blockRuns) int {
	for j := range rs {
		if len(b) < 64*(j+1) {
			return j
		}
		var k blockMasks
		classifyWords((*[64]byte)(b[64*j:]), &k)
		if r := &rs[j]; runsOf(&k, r) {
			return j + 1
		}
	}
	return len(rs)
}
