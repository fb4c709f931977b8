package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestShortEscapes: each escape, short or not (the table says which), put at
// every offset around the 64-byte block edges, in plain text and after a run
// of escapes (which shifts where an escape cut by a block's end begins).
func TestShortEscapes(t *testing.T) {
	pad := strings.Repeat("x", 130)
	for _, tc := range []struct {
		esc  string
		want bool
	}{
		{`\n`, true}, {`\"`, true}, {`\\`, true}, {`\t`, true}, {`\b`, true}, {`\f`, true}, {`\r`, true},
		{`\/`, false}, {`\u0041`, false}, {`\\u`, true}, {`\\/`, true}, {`\\\/`, false}, {`\\\u0041`, false},
	} {
		for at := 0; at < len(pad); at++ {
			body := pad[:at] + tc.esc + pad[at:]
			var s string
			if err := json.Unmarshal([]byte(`"`+body+`"`), &s); err != nil {
				t.Fatalf("%q is not a string body: %v", body, err)
			}
			if got := ShortEscapes([]byte(body)); got != tc.want {
				t.Fatalf("ShortEscapes with %s at %d = %v, want %v", tc.esc, at, got, tc.want)
			}
			dense := strings.Repeat(`a\n`, at) + tc.esc + strings.Repeat(`\t`, 40)
			if got := ShortEscapes([]byte(dense)); got != tc.want {
				t.Fatalf("ShortEscapes with %s after %d escapes = %v, want %v", tc.esc, at, got, tc.want)
			}
		}
	}
}
