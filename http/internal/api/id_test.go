package api

import (
	"regexp"
	"testing"
)

// An id is its prefix, the Unix time and 15 random bytes in unpadded base32.
func TestNewID(t *testing.T) {
	shape := regexp.MustCompile(`^gen-[0-9]{10,}-[A-Z2-7]{24}$`)
	seen := map[string]bool{}
	for range 100 {
		id := NewID("gen-")
		if !shape.MatchString(id) {
			t.Fatalf("NewID = %q, not %s", id, shape)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
}

func BenchmarkNewID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = NewID("gen-")
	}
}
