package websearch

import (
	"strings"
	"unicode/utf8"
)

// The bounds of one result as the engine hands it on: a longer URL is left
// out (a citation cut short points nowhere), a longer title or snippet is cut.
const (
	MaxURL     = 2048
	MaxTitle   = 300
	MaxContent = 1000
	// MaxResults is the most results one search may ask for.
	MaxResults = 20
)

// ResultBound is the most bytes one result takes in the prompt, framing
// included (see the actors' search prompt).
const ResultBound = MaxURL + MaxTitle + MaxContent + 16

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
