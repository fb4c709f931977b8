package jsonscan

import (
	"strings"
	"testing"
)

// isStop is a quote, a backslash or a control character, a byte at a time.
func isStop(c byte) bool { return c < 0x20 || c == '\\' || c == '"' }

// plain are 64 bytes none of which is a stop: 0x20, 0x7F, 0x80, 0xFF, and
// 0x9C and 0xA2, whose low seven bits are a backslash's and a quote's.
var plain = strings.Repeat("a \x7f\x80\xff\x9c\xa2~", 8)

// TestStringStop: at every length up to 80, with each kind of stop byte at
// each position (and a later one after it), both forms find the first stop
// as a byte-at-a-time loop finds it.
func TestStringStop(t *testing.T) {
	text := plain + plain
	for n := 0; n <= 80; n++ {
		check := func(s []byte) {
			t.Helper()
			want := len(s)
			for i, c := range s {
				if isStop(c) {
					want = i
					break
				}
			}
			if got := stringStop(s); got != want {
				t.Fatalf("stringStop(%q) = %d, want %d", s, got, want)
			}
			if got := stringStopWords(s); got != want {
				t.Fatalf("stringStopWords(%q) = %d, want %d", s, got, want)
			}
		}
		check([]byte(text[:n]))
		for at := 0; at < n; at++ {
			for _, c := range []byte{'"', '\\', 0x00, 0x1F, '\n'} {
				s := []byte(text[:n])
				s[at] = c
				check(s)
				s[n-1] = '"'
				check(s)
			}
		}
	}
}

// TestValidStringAtEveryOffset: a string with an escape, a bad escape, a raw
// control character or its closing quote at every offset around the 16- and
// 32-byte steps of stringStop is judged as json.Valid judges it.
func TestValidStringAtEveryOffset(t *testing.T) {
	text := strings.Repeat(plain, 3)
	for n := 0; n <= 150; n++ {
		checkValid(t, []byte(`"`+text[:n]+`"`))
		checkValid(t, []byte(`"`+text[:n])) // unterminated
		for _, esc := range []string{`\n`, `\"`, `\\`, `\u00e9`, `\u00g9`, `\x`, "\x01", `\`, `"`, `\u12`} {
			for _, at := range []int{0, n / 2, n} {
				checkValid(t, []byte(`"`+text[:at]+esc+text[at:n]+`"`))
				checkValid(t, []byte(`["`+text[:at]+esc+text[at:n]+`", 1]`))
			}
		}
	}
}

// BenchmarkValidString is the validation of a long prompt's string: English
// prose and code (an escape every forty bytes or so), and prose alone.
func BenchmarkValidString(b *testing.B) {
	const code = `The gateway reserves the worst case of a request before it calls the upstream.\n` +
		`func settle(r *Reservation) int64 {\n\treturn r.Held // \"held\" is the ceiling\n}\n\n`
	const prose = "The gateway reserves the worst case of a request before it calls the upstream. "
	for _, tc := range []struct{ name, chunk string }{{"code", code}, {"prose", prose}} {
		s := []byte(`"` + strings.Repeat(tc.chunk, 150_000/len(tc.chunk)) + `"`)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if end, err := validString(s, 0); err != nil || end != len(s) {
					b.Fatal(end, err)
				}
			}
		})
	}
}
