//go:build amd64 && !purego

package shlyuz

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestClassifyAMD64AsWords checks both amd64 classifications, whichever
// classifyBlock picks on this CPU.
func TestClassifyAMD64AsWords(t *testing.T) {
	t.Run("SSE2", func(t *testing.T) { checkClassify(t, classify64) })
	t.Run("AVX2", func(t *testing.T) {
		if !cpu.X86.HasAVX2 {
			t.Skip("no AVX2 on this CPU")
		}
		checkClassify(t, classify64AVX2)
	})
}

// TestTextTokensWithoutAVX2 runs the count tests on the SSE2 path, whatever
// this CPU has.
func TestTextTokensWithoutAVX2(t *testing.T) {
	defer func(was bool) { useAVX2 = was }(useAVX2)
	useAVX2 = false
	TestTextTokensCountsAsTheReference(t)
	TestTextTokensEscapeRuns(t)
}
