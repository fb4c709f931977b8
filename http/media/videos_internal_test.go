package media

import "testing"

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		h      string
		off, n int64
		ok     bool
	}{
		{"bytes=0-99", 0, 100, true},
		{"bytes=10-", 10, 990, true},
		{"bytes=-10", 990, 10, true},
		{"bytes=-5000", 0, 1000, true},
		{"bytes=900-5000", 900, 100, true},
		{"bytes=1000-", 0, 0, false},
		{"bytes=5-4", 0, 0, false},
		{"bytes=-0", 0, 0, false},
		{"bytes=x-", 0, 0, false},
		{"bytes=0-1,5-6", 0, -1, true}, // several ranges: the whole file
		{"items=0-1", 0, -1, true},
	} {
		off, n, ok := parseRange(c.h, 1000)
		if off != c.off || n != c.n || ok != c.ok {
			t.Errorf("%s: %d %d %v", c.h, off, n, ok)
		}
	}
}
