package mediatest

import (
	"bytes"
	"encoding/binary"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
)

// The liar files: audio whose headers or damage make a naive reading of its
// duration far shorter than what a decoder plays.

// MP3WithJunk is MP3(seconds) with a 0x00 byte after its first frame: a
// reading that stops at the first byte that is not a frame header sees one
// frame; a decoder resyncs and plays them all.
func MP3WithJunk(seconds float64) []byte {
	b := MP3(seconds)
	out := make([]byte, 0, len(b)+1)
	out = append(out, b[:417]...)
	out = append(out, 0)
	return append(out, b[417:]...)
}

// OggOpusClaiming is OggOpus(seconds) whose last page's granule position
// says it lasts claimed seconds.
func OggOpusClaiming(seconds, claimed float64) []byte {
	return oggGranule(OggOpus(seconds), uint64(312+claimed*48000))
}

// FLACClaiming is seconds of silence at 16 kHz mono as FLAC frames of 4,096
// samples (encoded by mewkiz/flac), whose STREAMINFO says claimed seconds.
func FLACClaiming(seconds, claimed float64) []byte {
	const rate, block = 16000, 4096
	total := int(seconds * rate)
	info := &meta.StreamInfo{BlockSizeMin: block, BlockSizeMax: block, SampleRate: rate, NChannels: 1, BitsPerSample: 16,
		NSamples: uint64(claimed * rate)}
	var buf bytes.Buffer // not a Seeker: the encoder leaves STREAMINFO as given
	enc, err := flac.NewEncoder(&buf, info)
	if err != nil {
		panic(err)
	}
	for done := 0; done < total; done += block {
		n := min(block, total-done)
		f := &frame.Frame{
			Header:    frame.Header{HasFixedBlockSize: true, BlockSize: uint16(n), SampleRate: rate, Channels: frame.ChannelsMono, BitsPerSample: 16},
			Subframes: []*frame.Subframe{{SubHeader: frame.SubHeader{Pred: frame.PredConstant}, Samples: make([]int32, n), NSamples: n}},
		}
		if err := enc.WriteFrame(f); err != nil {
			panic(err)
		}
	}
	if err := enc.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// oggGranule rewrites the granule position of the last page of an Ogg file
// and its CRC.
func oggGranule(b []byte, granule uint64) []byte {
	last := bytes.LastIndex(b, []byte("OggS"))
	binary.LittleEndian.PutUint64(b[last+6:], granule)
	binary.LittleEndian.PutUint32(b[last+22:], 0)
	binary.LittleEndian.PutUint32(b[last+22:], oggCRC(b[last:]))
	return b
}
