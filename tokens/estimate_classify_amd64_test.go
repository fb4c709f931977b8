//go:build amd64 && !purego

package tokens

import "testing"

// TestClassifySSE2AsWords checks the SSE2 classification classifyBlocks
// uses where the CPU has no AVX2 (the AVX2 routine classifies whole runs:
// estimate_ascii_test.go).
func TestClassifySSE2AsWords(t *testing.T) { checkClassify(t, classify64) }

// TestTextTokensWithoutAVX2 runs the count tests on the SSE2 path, whatever
// this CPU has.
func TestTextTokensWithoutAVX2(t *testing.T) {
	defer func(was bool) { useAVX2 = was }(useAVX2)
	useAVX2 = false
	TestTextTokensCountsAsTheReference(t)
	TestTextTokensEscapeRuns(t)
}
