package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"testing"

	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/tokens"
)

// TestMeasureMediaReadsWhatEachPartHolds: each kind of part is measured by
// its content, whatever its declared type; what cannot be measured is a 400.
func TestMeasureMediaReadsWhatEachPartHolds(t *testing.T) {
	var pngBuf bytes.Buffer
	_ = png.Encode(&pngBuf, image.NewGray(image.Rect(0, 0, 640, 480)))
	b64 := base64.StdEncoding.EncodeToString
	pdf := b64(mediatest.PDF(7))
	for _, tc := range []struct {
		name string
		part map[string]any
		want tokens.MediaPart // Kind 0: refused
	}{
		{"a PNG by data URL", map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + b64(pngBuf.Bytes())}},
			tokens.MediaPart{Kind: tokens.MediaImage, Width: 640, Height: 480}},
		{"an image URL as a string", map[string]any{"type": "image_url", "image_url": "https://example.com/cat.png"}, tokens.MediaPart{Kind: tokens.MediaImageURL}},
		{"a PDF as a file", map[string]any{"type": "file", "file": map[string]any{"file_data": "data:application/pdf;base64," + pdf}}, tokens.MediaPart{Kind: tokens.MediaPDF, Pages: 7}},
		{"a PDF as bare base64", map[string]any{"type": "file", "file": map[string]any{"file_data": pdf}}, tokens.MediaPart{Kind: tokens.MediaPDF, Pages: 7}},
		{"a PDF in an image_url", map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + pdf}}, tokens.MediaPart{Kind: tokens.MediaPDF, Pages: 7}},
		{"a video as a file", map[string]any{"type": "file", "file": map[string]any{"file_data": "data:video/mp4;base64," + b64(mediatest.MP4Still(90))}},
			tokens.MediaPart{Kind: tokens.MediaVideo, Seconds: 90}},
		{"a video_url", map[string]any{"type": "video_url", "video_url": map[string]any{"url": "data:video/mp4;base64," + b64(mediatest.MP4(3))}},
			tokens.MediaPart{Kind: tokens.MediaVideo, Seconds: 3}},
		{"MP3 with junk", map[string]any{"type": "input_audio", "input_audio": map[string]any{"format": "mp3", "data": b64(mediatest.MP3WithJunk(30))}},
			tokens.MediaPart{Kind: tokens.MediaAudio, Seconds: 31}}, // 1,149 whole frames play 30.01 s
		{"WAV as a file", map[string]any{"type": "file", "file": map[string]any{"file_data": "data:audio/wav;base64," + b64(mediatest.WAV(2.5, 8000))}},
			tokens.MediaPart{Kind: tokens.MediaAudio, Seconds: 3}},
		{"a PDF by URL", map[string]any{"type": "file", "file": map[string]any{"file_data": "https://example.com/a.pdf"}}, tokens.MediaPart{}},
		{"a stored file", map[string]any{"type": "file", "file": map[string]any{"file_id": "file-abc"}}, tokens.MediaPart{}},
		{"a PDF URL as an image", map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/a.PDF?x=1"}}, tokens.MediaPart{}},
		{"a video by URL", map[string]any{"type": "video_url", "video_url": map[string]any{"url": "https://example.com/a.mp4"}}, tokens.MediaPart{}},
		{"a damaged PDF", map[string]any{"type": "file", "file": map[string]any{"file_data": "data:application/pdf;base64,JVBERi0xLjQK"}}, tokens.MediaPart{}},
		{"bytes that are no image", map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,aGVsbG8gd29ybGQ="}}, tokens.MediaPart{}},
		{"a video that is not MP4", map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:video/webm;base64," + b64([]byte{0x1A, 0x45, 0xDF, 0xA3, 1, 2, 3, 4})}}, tokens.MediaPart{}},
		{"an unknown part type", map[string]any{"type": "input_video", "data": "x"}, tokens.MediaPart{}},
		{"not base64", map[string]any{"type": "input_audio", "input_audio": map[string]any{"format": "wav", "data": "***"}}, tokens.MediaPart{}},
		{"a video whose track claims 2^64 seconds", map[string]any{"type": "video_url", "video_url": map[string]any{"url": "data:video/mp4;base64," + b64(endlessMP4(t))}}, tokens.MediaPart{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _ := json.Marshal([]map[string]any{{"role": "user", "content": []map[string]any{{"type": "text", "text": "look"}, tc.part}}})
			got, err := MeasureMedia(msgs, "messages")
			if tc.want.Kind == 0 {
				if err == nil || err.Status != 400 {
					t.Fatalf("measured %+v, want a 400", got)
				}
				t.Log(err.Message)
				return
			}
			if err != nil || len(got.Parts) != 1 || got.Parts[0] != tc.want {
				t.Fatalf("%+v %v, want %+v", got, err, tc.want)
			}
		})
	}
}

// endlessMP4 is a 3-second MP4 whose track's header says a timescale of 1
// and whose sample table says 2^32-1 samples of 2^32-1 ticks each: more
// seconds than an int64 holds.
func endlessMP4(t *testing.T) []byte {
	b := bytes.Clone(mediatest.MP4(3))
	mdhd, stts := bytes.Index(b, []byte("mdhd")), bytes.Index(b, []byte("stts"))
	if mdhd < 0 || stts < 0 || b[mdhd+4] != 0 {
		t.Fatal("the MP4 has no version-0 mdhd or no stts")
	}
	copy(b[mdhd+4+12:], []byte{0, 0, 0, 1})                                    // timescale
	copy(b[stts+4+8:], []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}) // count, delta
	return b
}
