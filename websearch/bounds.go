package websearch

import (
	"strings"
	"unicode/utf8"
)

// clip cuts s to at most n bytes at a rune boundary, its spaces folded.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
