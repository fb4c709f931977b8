package fake

import (
	"bytes"
	"errors"
	"io"

	"github.com/hajimehoshi/go-mp3"
	"github.com/mewkiz/flac"

	"github.com/shlyuz/shlyuz/media"
)

// DecodedSeconds is how long audio plays in a decoder, as a transcription
// upstream measures it before it bills: MP3 by go-mp3's frame walk (which
// resyncs past junk, as decoders do), FLAC by decoding every frame with
// mewkiz/flac, Ogg Opus by its packets' TOC bytes, PCM WAV by its samples.
// Headers that claim a duration (STREAMINFO's total, an Ogg's granule) count
// nothing, as in a decoder. Other containers fall back to the gateway's
// reading; ok is false for audio no decoder here can play.
func DecodedSeconds(kind string, audio []byte) (seconds float64, ok bool) {
	switch kind {
	case "mp3":
		d, err := mp3.NewDecoder(bytes.NewReader(audio))
		if err != nil || d.Length() <= 0 {
			return 0, false
		}
		return float64(d.Length()) / 4 / float64(d.SampleRate()), true // 16-bit stereo out
	case "flac":
		s, err := flac.New(bytes.NewReader(audio))
		if err != nil {
			return 0, false
		}
		var samples float64
		for {
			f, err := s.ParseNext()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return 0, false
			}
			samples += float64(f.BlockSize) / float64(f.SampleRate)
		}
		return samples, samples > 0
	case "ogg":
		return opusPlayed(audio)
	case "wav":
		w, ok := media.ParseWAV(audio)
		if !ok {
			return 0, false
		}
		return float64(len(w.Data)) / float64(w.Rate*w.Channels*w.Bits/8), true
	}
	secs, exact := media.AudioSeconds(kind, audio)
	return secs.Float64(), exact || kind == "m4a" || kind == "webm"
}

// opusPlayed is how long an Ogg Opus stream plays: its pages read in order
// (resyncing to the next "OggS" past junk), each audio packet's frames by
// its TOC byte (RFC 6716 §3.1).
func opusPlayed(b []byte) (float64, bool) {
	var ms2 int64 // in 2.5 ms
	var packet []byte
	heads := 0
	for off := 0; off+27 <= len(b); {
		if string(b[off:off+4]) != "OggS" {
			off++
			continue
		}
		segs := int(b[off+26])
		if off+27+segs > len(b) {
			break
		}
		data := off + 27 + segs
		for _, lace := range b[off+27 : off+27+segs] {
			end := min(len(b), data+int(lace))
			packet = append(packet, b[data:end]...)
			data = end
			if lace < 255 {
				switch {
				case bytes.HasPrefix(packet, []byte("OpusHead")), bytes.HasPrefix(packet, []byte("OpusTags")):
					heads++
				case len(packet) > 0:
					ms2 += opusTOC(packet)
				}
				packet = packet[:0]
			}
		}
		off = data
	}
	return float64(ms2) / 400, heads > 0 && ms2 > 0
}

func opusTOC(p []byte) int64 {
	config, code := p[0]>>3, p[0]&3
	var frame int64
	switch {
	case config < 12:
		frame = []int64{4, 8, 16, 24}[config%4]
	case config < 16:
		frame = []int64{4, 8}[config%2]
	default:
		frame = []int64{1, 2, 4, 8}[config%4]
	}
	switch code {
	case 0:
		return frame
	case 1, 2:
		return 2 * frame
	}
	if len(p) < 2 {
		return 0
	}
	return min(48, frame*int64(p[1]&0x3F))
}
