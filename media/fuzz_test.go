package media

import "testing"

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

// FuzzMediaParts: the PDF, MP4 and image readers behind the reservation of
// media parts never panic, whatever the bytes, and what they read is never
// negative.
func FuzzMediaParts(f *testing.F) {
	f.Add([]byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"))
	f.Add([]byte("\x00\x00\x00\x10ftypisom\x00\x00\x02\x00\x00\x00\x00\x08moov"))
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00"))
	f.Add([]byte("RIFF\x1a\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := PDFPages(b); err == nil && n < 1 {
			t.Fatalf("%d pages", n)
		}
		if s, err := MP4Seconds(b); err == nil && s < 0 {
			t.Fatalf("%v s", s)
		}
		if w, h, err := ImageSize(b); err == nil && (w < 1 || h < 1) {
			t.Fatalf("%d×%d", w, h)
		}
	})
}
