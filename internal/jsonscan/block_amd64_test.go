//go:build amd64 && !purego

package jsonscan

import "golang.org/x/sys/cpu"

// stringBlocksVariants are the forms of stringBlocks this CPU runs.
var stringBlocksVariants = func() []func([]byte) (int, uint64, uint64, uint64) {
	v := []func([]byte) (int, uint64, uint64, uint64){stringBlocksSSE2}
	if cpu.X86.HasAVX2 {
		v = append(v, stringBlocksAVX2)
	}
	return v
}()
