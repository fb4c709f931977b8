//go:build !amd64 || purego

package jsonscan

// stringStop is the index of s's first quote, backslash or control character
// (below 0x20), or len(s) when it has none: where a string's plain run ends.
func stringStop(s []byte) int { return stringStopWords(s) }
