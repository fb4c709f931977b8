package shlyuz

import (
	"encoding/json"
	"testing"
)

// FuzzMoneyAndEstimates: the parsers of amounts (decimals, rubles) and the
// token estimates never panic, and what they accept is consistent: a parsed
// decimal prints back to a value that parses equal; rubles convert to whole
// credits only when exact; estimates are never negative.
func FuzzMoneyAndEstimates(f *testing.F) {
	for _, seed := range []string{"0", "1.5", "-2", "990.00", "0.000001", "1e5", "0x10", "1_000", " 1", "12345678901234567890.5",
		`[{"content":"hi"}]`, `[{"message":{"content":"abcd"}}]`, `[{"content":[{"type":"text","text":"x"},{"type":"image_url"}]}]`,
		`[{"content":"\ud83d\ude00 \u0436\u04 12345 Привет, world!\n\t  x"}]`, `[{"content":"\\"}]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDecimal(s); err == nil {
			again, err := ParseDecimal(d.String())
			if err != nil || again.Cmp(d) != 0 {
				t.Fatalf("%q parsed as %s, which parses back as %s (%v)", s, d, again, err)
			}
		}
		if c, err := RublesToCredits(s); err == nil && c < 0 {
			t.Fatalf("%q rubles = %d credits", s, c)
		}
		if e, err := EstimatePrompt(json.RawMessage(s)); err == nil && (e.Likely < 1 || e.Reserve < e.Likely) {
			t.Fatalf("prompt %q estimated %+v", s, e)
		}
		if n := EstimateCompletion(json.RawMessage(s)); n < 0 {
			t.Fatalf("completion %q estimated %d", s, n)
		}
	})
}

// FuzzAudioMedia: the audio container readers never panic, whatever the
// bytes, and a duration they read is never negative.
func FuzzAudioMedia(f *testing.F) {
	f.Add([]byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00\x00\x7d\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00"))
	f.Add([]byte("ID3\x03\x00\x00\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xfb\x90\xc0"))
	f.Add([]byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x13OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00"))
	f.Add([]byte("fLaC\x00\x00\x00\x22\x10\x00\x10\x00\x00\x00\x00\x00\x00\x00\x0a\xc4\x40\xf0\x00\x00\xac\x44\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		kind := SniffAudio(b)
		for _, format := range []string{kind, "wav", "mp3", "ogg", "flac"} {
			if secs, _ := AudioSeconds(format, b); secs.Sign() < 0 {
				t.Fatalf("%s of %q lasts %s", format, b, secs)
			}
		}
		if w, ok := ParseWAV(b); ok && (w.Rate <= 0 || len(w.Data) > len(b)) {
			t.Fatalf("ParseWAV %+v", w)
		}
	})
}
