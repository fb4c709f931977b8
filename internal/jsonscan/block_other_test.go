//go:build !amd64 || purego

package jsonscan

// stringBlocksVariants are the forms of stringBlocks this CPU runs.
var stringBlocksVariants []func([]byte) (int, uint64, uint64, uint64)
