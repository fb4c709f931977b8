package plainjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// encoded is s as encoding/json writes it without HTML escaping: the reference.
func encoded(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendString(t *testing.T) {
	tests := []struct {
		name, s, want string
	}{
		{"empty", "", `""`},
		{"plain", "hello", `"hello"`},
		{"html as written", "<a href='x'>&</a>", `"<a href='x'>&</a>"`},
		{"quote and backslash", `say "hi" \o/`, `"say \"hi\" \\o/"`},
		{"short escapes", "\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"other controls", "\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"delete as written", "\x7f", "\"\x7f\""},
		{"line separators", "a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"invalid utf-8", "a\xffb\xc3", `"a\ufffdb\ufffd"`},
		{"multibyte", "привет, 世界 🙂", `"привет, 世界 🙂"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendString([]byte("x"), tt.s)
			if string(got) != "x"+tt.want {
				t.Errorf("AppendString(%q) = %s, want %s", tt.s, got[1:], tt.want)
			}
		})
	}
}

// TestAppendStringIsMarshal compares AppendString with encoding/json on
// every single byte, every rune up to U+3000 and random strings drawn from
// bytes that need care.
func TestAppendStringIsMarshal(t *testing.T) {
	var cases []string
	for c := 0; c < 256; c++ {
		cases = append(cases, string([]byte{byte(c)}), "ab"+string([]byte{byte(c)})+"cd")
	}
	for r := rune(0); r < 0x3000; r++ {
		cases = append(cases, string(r))
	}
	pool := []byte("aZ<>&\"\\\b\f\n\r\t\x00\x1f\x7f\x80\xbf\xc3\xe2\x80\xa8\xa9\xf0\x9f\x99\x82\xff")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = pool[rng.IntN(len(pool))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := AppendString(nil, s), encoded(t, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s (valid UTF-8: %v)", s, got, want, utf8.ValidString(s))
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "<&>", "\u2028\x00\xff", "\"\\\b\f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString(nil, s), encoded(t, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
