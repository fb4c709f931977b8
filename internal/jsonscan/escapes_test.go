package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestShortString: each escape, short or not (the table says which), put at
// every offset around the 64-byte block edges, in plain text and after a run
// of escapes (which shifts where an escape cut by a block's end begins), and
// the string followed by more JSON: ShortString ends where the literal ends
// and tells the table's answer.
func TestShortString(t *testing.T) {
	pad := strings.Repeat("x", 130)
	for _, tc := range []struct {
		esc  string
		want bool
	}{
		{`\n`, true}, {`\"`, true}, {`\\`, true}, {`\t`, true}, {`\b`, true}, {`\f`, true}, {`\r`, true},
		{`\/`, false}, {`\u0041`, false}, {`\\u`, true}, {`\\/`, true}, {`\\\/`, false}, {`\\\u0041`, false},
	} {
		for at := 0; at < len(pad); at++ {
			for _, body := range []string{
				pad[:at] + tc.esc + pad[at:],
				strings.Repeat(`a\n`, at) + tc.esc + strings.Repeat(`\t`, 40),
				pad[:at] + tc.esc,
			} {
				lit := `"` + body + `"`
				var s string
				if err := json.Unmarshal([]byte(lit), &s); err != nil {
					t.Fatalf("%s is not a string: %v", lit, err)
				}
				doc := []byte(`[` + lit + `,"\/",1]`)
				end, short, err := ShortString(doc, 1)
				if err != nil || end != 1+len(lit) || short != tc.want {
					t.Fatalf("ShortString(%s) = %d, %v, %v; want %d, %v", lit, end, short, err, 1+len(lit), tc.want)
				}
			}
		}
	}
	for _, cut := range []string{`"`, `"abc`, `"abc\`, `"` + pad + `\"`} {
		if _, _, err := ShortString([]byte(cut), 0); err == nil {
			t.Errorf("ShortString(%s): no error for a string with no end", cut)
		}
	}
}
