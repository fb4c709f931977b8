package mediatest

import (
	"encoding/binary"
	"math"

	"github.com/shlyuz/shlyuz/media"
)

// PCM is seconds of a 440 Hz sine as 16-bit little-endian mono samples at rate.
func PCM(seconds float64, rate int) []byte {
	n := int(seconds * float64(rate))
	b := make([]byte, 2*n)
	for i := range n {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

// WAV is PCM(seconds, rate) in a WAV file.
func WAV(seconds float64, rate int) []byte {
	pcm := PCM(seconds, rate)
	return append(media.WAVHeader(len(pcm), rate, 1), pcm...)
}

// MP3Frame is one 417-byte MPEG-1 layer III frame (44.1 kHz, 128 kbit/s,
// mono, no CRC) of digital silence: zero side information decodes as silence.
func MP3Frame() []byte {
	f := make([]byte, 417)
	copy(f, []byte{0xFF, 0xFB, 0x90, 0xC0})
	return f
}

// MP3FrameSeconds is one MP3Frame's duration.
const MP3FrameSeconds = 1152.0 / 44100

// MP3 is seconds of silence as whole MP3 frames (the duration rounded up to a frame).
func MP3(seconds float64) []byte {
	n := int(math.Ceil(seconds / MP3FrameSeconds))
	b := make([]byte, 0, n*417)
	for range n {
		b = append(b, MP3Frame()...)
	}
	return b
}

// OggOpus is seconds of silence as an Ogg Opus file: OpusHead (pre-skip 312),
// OpusTags, then 20 ms silent CELT packets, 50 a page.
func OggOpus(seconds float64) []byte {
	const serial = 0x5348
	head := []byte("OpusHead\x01\x01")
	head = binary.LittleEndian.AppendUint16(head, 312)
	head = binary.LittleEndian.AppendUint32(head, 48000)
	head = append(head, 0, 0, 0)
	tags := append([]byte("OpusTags"), 6, 0, 0, 0)
	tags = append(tags, "shlyuz"...)
	tags = append(tags, 0, 0, 0, 0)
	out := oggPage(nil, 2, 0, serial, 0, [][]byte{head})
	out = oggPage(out, 0, 0, serial, 1, [][]byte{tags})
	packets := int(math.Ceil(seconds/0.02)) + 1 // one more for the pre-skip
	granule, seq := uint64(0), uint32(2)
	for packets > 0 {
		n := min(50, packets)
		ps := make([][]byte, n)
		for i := range ps {
			ps[i] = []byte{0xF8, 0xFF, 0xFE}
		}
		packets -= n
		granule += uint64(960 * n)
		flags := byte(0)
		if packets == 0 {
			flags = 4
		}
		out = oggPage(out, flags, granule, serial, seq, ps)
		seq++
	}
	return out
}

// oggPage appends one Ogg page of small packets (each under 255 bytes).
func oggPage(out []byte, flags byte, granule uint64, serial, seq uint32, packets [][]byte) []byte {
	start := len(out)
	out = append(out, "OggS"...)
	out = append(out, 0, flags)
	out = binary.LittleEndian.AppendUint64(out, granule)
	out = binary.LittleEndian.AppendUint32(out, serial)
	out = binary.LittleEndian.AppendUint32(out, seq)
	out = append(out, 0, 0, 0, 0, byte(len(packets)))
	for _, p := range packets {
		out = append(out, byte(len(p)))
	}
	for _, p := range packets {
		out = append(out, p...)
	}
	binary.LittleEndian.PutUint32(out[start+22:], oggCRC(out[start:]))
	return out
}

var oggTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for range 8 {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04C11DB7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

// oggCRC is Ogg's CRC-32 (polynomial 0x04C11DB7, not reflected).
func oggCRC(b []byte) uint32 {
	var c uint32
	for _, x := range b {
		c = c<<8 ^ oggTable[byte(c>>24)^x]
	}
	return c
}
