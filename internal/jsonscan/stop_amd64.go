//go:build amd64 && !purego

package jsonscan

// stringStop is the index of s's first quote, backslash or control character
// (below 0x20), or len(s) when it has none: where a string's plain run ends.
// On amd64 SSE2 (which every amd64 CPU has) tests sixteen bytes at once, in
// stop_amd64.s.
//
//go:noescape
func stringStop(s []byte) int
