package media

import (
	"bytes"
	"encoding/binary"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The walks below bound how long a file plays in any decoder, whatever its
// headers claim. A decoder plays a frame only where a valid frame header
// (MPEG audio, FLAC) or a page (Ogg) sits; after a frame it goes on at or
// past the frame's end, and after junk it resyncs a byte further. So of all
// chains of non-overlapping frames the file holds, the longest to play is
// an upper bound of what any decoder plays: the walks find it by dynamic
// programming from the end of the file, best(p) = max(best(p+1),
// frame(p) + best(p+len(p))), in one pass and a ring of the next
// positions' values (a frame is shorter than the ring).

// mpegUnit is the LCM of the MPEG audio sample rates: every frame's
// duration is a whole number of 1/mpegUnit seconds.
const mpegUnit = 7_056_000

// mp3Bound is the longest an MPEG audio file (layers I to III, MPEG-1, 2
// and 2.5, free format included) plays in any decoder that resyncs: the
// longest chain of frame headers, as the package comment above says. An
// ID3v2 tag at the start is skipped, as every decoder skips it.
func mp3Bound(b []byte) (shlyuz.Decimal, bool) {
	start := 0
	if len(b) >= 10 && string(b[:3]) == "ID3" {
		start = min(len(b), 10+(int(b[6]&0x7F)<<21|int(b[7]&0x7F)<<14|int(b[8]&0x7F)<<7|int(b[9]&0x7F)))
		if b[5]&0x10 != 0 { // a footer follows the tag
			start = min(len(b), start+10)
		}
	}
	const mask = 1<<12 - 1 // frames are at most 2,881 bytes
	var ring [mask + 1]int64
	for p := len(b) - 4; p >= start; p-- {
		v := ring[(p+1)&mask]
		if b[p] == 0xFF {
			if n, units := mpegFrame(b[p], b[p+1], b[p+2]); n > 0 {
				var after int64
				if q := p + n; q < len(b) {
					after = ring[q&mask]
				}
				v = max(v, units+after)
			}
		}
		ring[p&mask] = v
	}
	if start > len(b)-4 {
		return shlyuz.Decimal{}, false
	}
	best := ring[start&mask]
	return shlyuz.NewDecimalFrac(best, mpegUnit), best > 0
}

var (
	// mpegKbps is the bit rate by [MPEG-1?0:1][layer-1][index], kbit/s.
	mpegKbps = [2][3][16]int{
		{
			{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 0},
			{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 0},
			{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0},
		},
		{
			{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256, 0},
			{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0},
			{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0},
		},
	}
	// mpegRates is the sample rate by [version bits][index]: 0 MPEG-2.5, 2 MPEG-2, 3 MPEG-1.
	mpegRates = [4][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}}
)

// mpegFrame reads the MPEG audio frame header whose first bytes are h0
// (0xFF), h1, h2: the frame's length in bytes and its duration in
// 1/mpegUnit seconds; 0 when they are no header. A free-format frame
// (bit-rate index 0) has no length of its own: it is taken as 4 bytes, so
// the walk may place the next frame anywhere after it.
func mpegFrame(h0, h1, h2 byte) (int, int64) {
	version, layer := (h1>>3)&3, 4-int((h1>>1)&3)
	bi, ri, pad := int(h2>>4), int(h2>>2)&3, int(h2>>1)&1
	if h0 != 0xFF || h1&0xE0 != 0xE0 || version == 1 || layer == 4 || bi == 15 || ri == 3 {
		return 0, 0
	}
	rate := mpegRates[version][ri]
	lsf := 0
	if version != 3 {
		lsf = 1
	}
	spf := 1152
	switch {
	case layer == 1:
		spf = 384
	case layer == 3 && lsf == 1:
		spf = 576
	}
	units := int64(spf) * (mpegUnit / int64(rate))
	if bi == 0 {
		return 4, units
	}
	br := mpegKbps[lsf][layer-1][bi] * 1000
	if layer == 1 {
		return (12*br/rate + pad) * 4, units
	}
	return spf/8*br/rate + pad, units
}

// oggBound is the longest an Ogg Opus or Ogg Vorbis file plays: the longest
// chain of pages (each "OggS" a decoder could resync to, its length by its
// lacing values), each counting the packets that start in it: an Opus
// packet by its TOC byte (at most 120 ms), a Vorbis audio packet by half
// the largest block size the identification headers allow. The granule
// positions, which a liar sets, count nothing. A stream of another codec, or
// of both, is not walked.
func oggBound(b []byte) (shlyuz.Decimal, bool) {
	opus := bytes.Contains(b, []byte("OpusHead"))
	var vorbisRate, vorbisBlock int64 // the lowest rate and the largest block of any identification header
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("\x01vorbis"))
		if j < 0 {
			break
		}
		i += j + 7
		if id := b[i-7:]; len(id) >= 30 {
			rate := int64(binary.LittleEndian.Uint32(id[12:16]))
			if rate > 0 && (vorbisRate == 0 || rate < vorbisRate) {
				vorbisRate = rate
			}
			vorbisBlock = max(vorbisBlock, int64(1)<<min(id[28]>>4, 16))
		}
	}
	var unit int64 // a packet's duration is in 1/unit seconds
	switch {
	case opus && vorbisRate == 0:
		unit = 400 // 2.5 ms, Opus's shortest frame
	case !opus && vorbisRate > 0:
		unit = vorbisRate
	default:
		return shlyuz.Decimal{}, false
	}
	packet := func(first []byte) int64 {
		if len(first) == 0 {
			return 0
		}
		if opus {
			if bytes.HasPrefix(first, []byte("OpusHead")) || bytes.HasPrefix(first, []byte("OpusTags")) {
				return 0
			}
			return opusPacketUnits(first)
		}
		if first[0]&1 != 0 { // a Vorbis header packet plays nothing
			return 0
		}
		return vorbisBlock / 2
	}
	const mask = 1<<16 - 1 // a page is at most 27+255+255×255 bytes
	ring := make([]int64, mask+1)
	for p := len(b) - 27; p >= 0; p-- {
		v := ring[(p+1)&mask]
		if b[p] == 'O' && string(b[p:p+4]) == "OggS" {
			n, units := oggPage(b[p:], packet)
			var after int64
			if q := p + n; q < len(b) {
				after = ring[q&mask]
			}
			v = max(v, units+after)
		}
		ring[p&mask] = v
	}
	if len(b) < 27 {
		return shlyuz.Decimal{}, false
	}
	best := ring[0]
	return shlyuz.NewDecimalFrac(best, unit), best > 0
}

// oggPage reads the page at the start of b: its length (cut to b) and the
// units of the packets that start in it, each priced by packet from its
// first bytes within the page.
func oggPage(b []byte, packet func([]byte) int64) (int, int64) {
	segs := int(b[26])
	table := b[27:min(len(b), 27+segs)]
	data := 27 + segs
	var units int64
	starts := b[5]&1 == 0 // not a continued packet: one starts with the page
	off := data
	for _, lace := range table {
		if starts && off < len(b) {
			units += packet(b[off:min(len(b), off+int(lace))])
		}
		off += int(lace)
		starts = lace < 255
	}
	return min(len(b), max(off, 27)), units
}

// opusPacketUnits is an Opus packet's duration in 2.5 ms units by its TOC
// byte (RFC 6716 §3.1): the frame size of its configuration times its
// frames, at most 120 ms.
func opusPacketUnits(p []byte) int64 {
	toc := p[0]
	config := toc >> 3
	var frame int64
	switch {
	case config < 12: // SILK: 10, 20, 40, 60 ms
		frame = [4]int64{4, 8, 16, 24}[config&3]
	case config < 16: // hybrid: 10, 20 ms
		frame = [2]int64{4, 8}[config&1]
	default: // CELT: 2.5, 5, 10, 20 ms
		frame = [4]int64{1, 2, 4, 8}[config&3]
	}
	frames := int64(1)
	switch toc & 3 {
	case 1, 2:
		frames = 2
	case 3:
		frames = 48
		if len(p) > 1 {
			frames = int64(p[1] & 0x3F)
		}
	}
	return min(frame*frames, 48)
}

// flacBound is the most a FLAC file plays: every frame header a decoder
// could sync to (the sync code, a valid header and its CRC-8), each its
// block size at its sample rate (STREAMINFO's where the header defers to
// it). STREAMINFO's total, which a liar sets, counts nothing. Every header
// is counted, so no chain of them is longer.
func flacBound(b []byte) (shlyuz.Decimal, bool) {
	if len(b) < 4 || string(b[:4]) != "fLaC" {
		return shlyuz.Decimal{}, false
	}
	var streamRate int64
	if len(b) >= 8+18 && b[4]&0x7F == 0 {
		si := b[8:]
		streamRate = int64(si[10])<<12 | int64(si[11])<<4 | int64(si[12])>>4
	}
	samples := map[int64]int64{} // by sample rate
	for p := 4; p+6 <= len(b); p++ {
		if b[p] != 0xFF || b[p+1]&0xFE != 0xF8 {
			continue
		}
		block, rate, ok := flacFrameHeader(b[p:], streamRate)
		if ok {
			samples[rate] += block
		}
	}
	var d shlyuz.Decimal
	for rate, n := range samples {
		d = d.Add(shlyuz.NewDecimalFrac(n, rate))
	}
	return d, len(samples) > 0
}

// flacFrameHeader reads the FLAC frame header at the start of h: its block
// size in samples and its sample rate (streamRate where it defers to
// STREAMINFO); ok false when it is no header or its CRC-8 does not match.
func flacFrameHeader(h []byte, streamRate int64) (block, rate int64, ok bool) {
	bs, rc := h[2]>>4, h[2]&0x0F
	if bs == 0 || rc == 15 || h[3]>>4 >= 11 || (h[3]>>1)&7 == 3 || (h[3]>>1)&7 == 7 || h[3]&1 != 0 {
		return 0, 0, false
	}
	i := 4
	// The frame or sample number, UTF-8-like: 1 to 7 bytes.
	lead := h[i]
	n := 0
	switch {
	case lead < 0x80:
		n = 0
	case lead&0xE0 == 0xC0:
		n = 1
	case lead&0xF0 == 0xE0:
		n = 2
	case lead&0xF8 == 0xF0:
		n = 3
	case lead&0xFC == 0xF8:
		n = 4
	case lead&0xFE == 0xFC:
		n = 5
	case lead == 0xFE:
		n = 6
	default:
		return 0, 0, false
	}
	i++
	if i+n > len(h) {
		return 0, 0, false
	}
	for _, c := range h[i : i+n] {
		if c&0xC0 != 0x80 {
			return 0, 0, false
		}
	}
	i += n
	need := func(k int) bool { return i+k <= len(h) }
	switch {
	case bs == 1:
		block = 192
	case bs <= 5:
		block = 576 << (bs - 2)
	case bs == 6:
		if !need(1) {
			return 0, 0, false
		}
		block = int64(h[i]) + 1
		i++
	case bs == 7:
		if !need(2) {
			return 0, 0, false
		}
		block = int64(binary.BigEndian.Uint16(h[i:])) + 1
		i += 2
	default:
		block = 256 << (bs - 8)
	}
	switch rc {
	case 0:
		rate = streamRate
	case 12:
		if !need(1) {
			return 0, 0, false
		}
		rate = int64(h[i]) * 1000
		i++
	case 13, 14:
		if !need(2) {
			return 0, 0, false
		}
		rate = int64(binary.BigEndian.Uint16(h[i:]))
		if rc == 14 {
			rate *= 10
		}
		i += 2
	default:
		rate = [12]int64{0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000}[rc]
	}
	if rate <= 0 || !need(1) || crc8(h[:i]) != h[i] {
		return 0, 0, false
	}
	return block, rate, true
}

// crc8 is FLAC's frame header CRC (polynomial x^8+x^2+x+1, initial 0).
func crc8(b []byte) byte {
	var c byte
	for _, x := range b {
		c ^= x
		for range 8 {
			if c&0x80 != 0 {
				c = c<<1 ^ 0x07
			} else {
				c <<= 1
			}
		}
	}
	return c
}

// wavBound is how long a WAV file of PCM or float samples plays: its bytes
// from the data chunk's start to the end of the file (whatever the chunk's
// size says) over the byte rate its rate, channels and sample size make
// (not the header's own byte rate). A WAV of another codec is not walked.
func wavBound(b []byte) (shlyuz.Decimal, bool) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return shlyuz.Decimal{}, false
	}
	var byteRate int64
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int64(binary.LittleEndian.Uint32(b[off+4:off+8]))
		body := b[off+8:]
		switch id {
		case "fmt ":
			if len(body) < 16 {
				return shlyuz.Decimal{}, false
			}
			switch binary.LittleEndian.Uint16(body[0:2]) {
			case 1, 3, 0xFFFE: // PCM, IEEE float, extensible (of PCM or float)
			default:
				return shlyuz.Decimal{}, false
			}
			channels := int64(binary.LittleEndian.Uint16(body[2:4]))
			rate := int64(binary.LittleEndian.Uint32(body[4:8]))
			bits := int64(binary.LittleEndian.Uint16(body[14:16]))
			byteRate = rate * channels * ((bits + 7) / 8)
		case "data":
			if byteRate <= 0 {
				return shlyuz.Decimal{}, false
			}
			return shlyuz.NewDecimalFrac(int64(len(body)), byteRate), len(body) > 0
		}
		if size > int64(len(body)) {
			return shlyuz.Decimal{}, false
		}
		off += 8 + int(size) + int(size%2)
	}
	return shlyuz.Decimal{}, false
}
