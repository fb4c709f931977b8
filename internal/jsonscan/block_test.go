package jsonscan

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// hostilePieces are what long random strings are made of: runs of
// backslashes of every parity, escapes good and bad, quotes, control
// characters, bytes above 0x7F whose low bits are a quote's or a backslash's.
var hostilePieces = []string{`\`, `\\`, `\\\`, `\"`, `\\"`, `\\\"`, `\n`, `\u0436`, `\u12`, `\uzzzz`, `\x`, `"`, "\x01", "\x1f",
	"\xa2", "\xdc", "ж", "a", "abc ", "        ", `\/`, `\b`}

// TestStringBlocksAsByteLoops: long strings (past 64 bytes, at every offset
// to the blocks) are validated as json.Valid does, and skipped to the quote
// validation ends them at; mostly plain, sometimes hostile.
func TestStringBlocksAsByteLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 64))
	for n := range 6_000 {
		var s strings.Builder
		s.WriteString(strings.Repeat("a", n%70))
		size := 64 + rng.IntN(400)
		for s.Len() < size {
			p := hostilePieces[rng.IntN(len(hostilePieces))]
			if rng.IntN(4) > 0 && n%3 != 0 {
				p = hostilePieces[16+rng.IntN(6)] // plain, mostly
			}
			s.WriteString(p)
		}
		for _, b := range [][]byte{[]byte(`"` + s.String() + `"`), []byte(`["` + s.String() + `",1]`), []byte(`"` + s.String())} {
			checkValid(t, b)
			open := bytes.IndexByte(b, '"')
			// Where the validating block scan accepts the string, the quote
			// to quote skip ends it at the same quote (another reading of
			// the same escapes: odd backslash runs against 64-byte masks).
			end, err := SkipString(b, open)
			if vend, verr := validString(b, open); verr == nil && (err != nil || end != vend) {
				t.Fatalf("SkipString(%q) = %d, %v; validString ends it at %d", b, end, err, vend)
			}
		}
	}
}

// TestStringBlocksForms: every form of stringBlocks finds the blocks and
// masks the portable one finds.
func TestStringBlocksForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 64))
	alphabet := []byte("a \x7f\x80\xff\x9c\xa2~\"\\\x00\x1f\x20\xdc")
	for n := range 20_000 {
		s := make([]byte, rng.IntN(300))
		for i := range s {
			s[i] = 'a'
			if rng.IntN(200) == 0 || n%2 == 0 {
				s[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		off, q, bs, ctl := stringBlocks(s)
		woff, wq, wbs, wctl := stringBlocksWords(s)
		if off != woff || q != wq || bs != wbs || ctl != wctl {
			t.Fatalf("stringBlocks(%q) = %d %x %x %x; stringBlocksWords gives %d %x %x %x", s, off, q, bs, ctl, woff, wq, wbs, wctl)
		}
		for _, f := range stringBlocksVariants {
			if off, q, bs, ctl := f(s); off != woff || q != wq || bs != wbs || ctl != wctl {
				t.Fatalf("a stringBlocks form (%q) = %d %x %x %x; stringBlocksWords gives %d %x %x %x", s, off, q, bs, ctl, woff, wq, wbs, wctl)
			}
		}
	}
}

// TestValidStringCodeLike: long strings of valid escapes and plain text,
// many blocks of them passed over at once, with at most one broken escape,
// raw control character or bare quote somewhere, are judged as json.Valid
// judges them.
func TestValidStringCodeLike(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 150))
	good := []string{`\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`, `\\\\`, `\u0436`, "abc", "  ", "x", "ж", "\xdc"}
	bad := []string{`\x`, `\u12`, `\uzz00`, "\x01", `"`, `\`, `\ `, `\'`, `\U0041`}
	for n := range 4_000 {
		var s strings.Builder
		s.WriteString(strings.Repeat("a", n%70))
		size := 64 + rng.IntN(700)
		for s.Len() < size {
			s.WriteString(good[rng.IntN(len(good))])
		}
		text := s.String()
		if n%2 == 0 {
			at := rng.IntN(len(text))
			for at > 0 && text[at-1] == '\\' { // not inside an escape
				at--
			}
			text = text[:at] + bad[rng.IntN(len(bad))] + text[at:]
		}
		checkValid(t, []byte(`"`+text+`"`))
		checkValid(t, []byte(`{"content":"`+text+`","n":1}`))
	}
}
