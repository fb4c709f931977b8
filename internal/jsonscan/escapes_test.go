package jsonscan

import (
	"bytes"
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

// FuzzShortString: on any valid string literal, padded past a few 64-byte
// blocks, ShortString ends where encoding/json's decoder says the literal
// ends (a valid document of that one string) and tells whether a byte loop
// over its escapes finds only short ones.
func FuzzShortString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\n\/"`, `"\\u"`, `"\u00e9\t"`, `"` + strings.Repeat(`x\"`, 30) + `"`} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, lit []byte, pad uint8) {
		lit = bytes.TrimRight(lit, " \t\r\n") // a valid document may end in spaces
		if len(lit) < 2 || lit[0] != '"' || !json.Valid(lit) {
			return
		}
		lit = append(append([]byte(`"`), bytes.Repeat([]byte("p"), int(pad))...), lit[1:]...)
		want := true
		for i := 1; i < len(lit)-1; i++ {
			if lit[i] == '\\' {
				want = want && lit[i+1] != '/' && lit[i+1] != 'u'
				i++
			}
		}
		doc := append(append([]byte{'['}, lit...), `,"\/"]`...)
		end, short, err := ShortString(doc, 1)
		if err != nil || end != 1+len(lit) || short != want {
			t.Fatalf("ShortString(%s) = %d, %v, %v; want %d, %v", lit, end, short, err, 1+len(lit), want)
		}
	})
}
