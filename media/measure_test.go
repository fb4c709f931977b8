package media_test

import (
	"testing"
	"time"

	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
)

// TestPDFPagesWalksThePageTree: pages are what the page tree holds; a root
// whose /Count says otherwise, a damaged file or no PDF at all is an error.
func TestPDFPagesWalksThePageTree(t *testing.T) {
	for _, tc := range []struct {
		name string
		pdf  []byte
		want int // 0: an error
	}{
		{"one page", mediatest.PDF(1), 1},
		{"100 pages", mediatest.PDF(100), 100},
		{"100 pages claiming 1", mediatest.PDFClaiming(100, 1), 0},
		{"1 page claiming 100", mediatest.PDFClaiming(1, 100), 0},
		{"a header only", []byte("%PDF-"), 0},
		{"cut in half", mediatest.PDF(4)[:300], 0},
		{"not a PDF", []byte("hello world"), 0},
		{"empty", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := media.PDFPages(tc.pdf)
			if tc.want == 0 {
				if err == nil {
					t.Fatalf("%d pages, want an error", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("%d pages (%v), want %d", got, err, tc.want)
			}
		})
	}
}

// TestPDFPagesOfAThousandPagesIsQuick: the count of a 1,000-page PDF takes
// well under a second.
func TestPDFPagesOfAThousandPagesIsQuick(t *testing.T) {
	b := mediatest.PDF(1000)
	start := time.Now()
	n, err := media.PDFPages(b)
	if err != nil || n != 1000 {
		t.Fatalf("%d pages (%v)", n, err)
	}
	t.Logf("%d bytes, %d pages in %v", len(b), n, time.Since(start))
}

// TestMP4SecondsIsTheLongestTrack: a video's duration is what its samples
// play, a still frame held an hour included; a box soup is an error.
func TestMP4SecondsIsTheLongestTrack(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want float64
	}{
		{"3 s at 2 fps", mediatest.MP4(3), 3},
		{"one frame for an hour", mediatest.MP4Still(3600), 3600},
	} {
		got, err := media.MP4Seconds(tc.b)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v s (%v), want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := media.MP4Seconds([]byte("\x00\x00\x00\x08ftyp")); err == nil {
		t.Error("no moov: no error")
	}
}
