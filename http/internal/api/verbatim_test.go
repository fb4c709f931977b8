package api

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// longControl finds a \u0008 or \u000c escape (an odd run of backslashes
// before the u).
var longControl = regexp.MustCompile(`(^|[^\\])(\\\\)*\\u000[8cC]`)

// TestVerbatimString: a literal (valid to encoding/json) may be copied as it
// stands exactly when a strict RFC 8259 reader (jsontext, which refuses
// invalid UTF-8 and escaped surrogate halves out of pairs) takes it and it
// has no \u0008 or \u000c (which the estimate would count otherwise than the
// \b and \f the full decode writes): every other escape means what it
// decodes to.
func TestVerbatimString(t *testing.T) {
	for _, lit := range []string{
		`""`, `"plain"`, `"a\nb\t\"c\" \\ \b\f\r"`, `"Привет 😀"`,
		`"C:\\users\\u"`, `"\\/"`, `"a\\\\u"`, `"x\\"`,
		`"\u0041"`, `"a\/b"`, `"\\\u0041"`, `"\\\/"`, `"\u00e9"`, `"line` + "\u2028" + `"`,
		`"\u003cb\u003e \u0026"`, `"\u041f\u0440\u0438\u0432\u0435\u0442"`, `"\u001b[0m"`,
		`"\ud83d\ude00"`, `"\uD83D\uDE00"`, `"\ud83d"`, `"\ude00"`, `"\ud83d\u0041"`, `"\ud83d\\ude00"`, `"x\ud83d\ude00\udbff\udfff"`,
		`"\ud83dx"`, `"\\ud83d"`, `"\\\ud83d"`,
		`"\uD83D\ude00"`, `"\ud83d\uDE00"`, `"\\ud800\udc00"`, `"\udc00\ud800"`, `"\ud800\ud800\udc00"`, `"\ud800\udc00\udc00"`, `"\ud7ff\ue000\uD7FF"`,
		`"\\\ud800\udc00"`, `"a\\\\\udc00"`, `"\ud800\\udc00"`,
		`"\u0008x"`, `"a\u000Cb"`, `"\u000cb"`, `"\\u0008"`, `"\\\u0008"`, `"\b\f\u0009\u000a\u001f"`, `"` + strings.Repeat("x", 62) + `\u0008"`,
		// past a word or two of plain bytes (plainRun reads eight at a time)
		`"0123456\n89abcdef\t"`, `"01234567\/9"`, `"0123456789abcdé"`, `"0123456789abcdef` + "\u2029" + `x"`,
		`"0123456789abcdef` + "\xff" + `"`, `"0123456789abcde` + "\xe2\x80" + `"`, `"0123456789abcdefghijklmnopqrstu\u0041"`,
		// past a 64-byte block (ShortString reads 64 at a time), the escape on either side of its edge
		`"` + strings.Repeat("x", 62) + `\/"`, `"` + strings.Repeat("x", 63) + `\u0041"`, `"` + strings.Repeat("x", 63) + `\\/"`,
		`"` + strings.Repeat(`a\n`, 30) + `\u00e9"`, `"` + strings.Repeat(`a\n`, 30) + `\t"`, `"` + strings.Repeat("x", 70) + "\u2028" + `"`,
		`"` + strings.Repeat("x", 60) + `\ud83d\ude00"`, `"` + strings.Repeat("x", 60) + `\ud83d"`, `"` + strings.Repeat("x", 66) + "\xc3" + `"`,
	} {
		if !json.Valid([]byte(lit)) {
			t.Fatalf("%s is not valid JSON", lit)
		}
		want := jsontext.Value(lit).IsValid() && !longControl.MatchString(lit)
		if got := VerbatimString([]byte(lit)); got != want {
			t.Errorf("verbatimString(%s) = %v, want %v (jsontext's strict reading, no \\u0008 or \\u000c)", lit, got, want)
		}
	}
}
