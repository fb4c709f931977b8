package media

import (
	"bytes"
	"encoding/binary"

	shlyuz "github.com/shlyuz/shlyuz"
)

// AudioSizeBytesPerSecond is the lowest byte rate assumed for audio whose
// duration cannot be read from its container (2,000 B/s, 16 kbit/s): its
// size divided by it is an upper bound of its duration for every codec a
// transcription upstream takes at speech quality.
const AudioSizeBytesPerSecond = 2000

// AudioMIME is the Content-Type of audio in a speech format.
func AudioMIME(format string) string {
	switch format {
	case "mp3":
		return "audio/mpeg"
	case "opus", "ogg":
		return "audio/ogg"
	case "aac":
		return "audio/aac"
	case "flac":
		return "audio/flac"
	case "wav":
		return "audio/wav"
	case "pcm":
		return "audio/pcm"
	case "webm":
		return "audio/webm"
	case "m4a", "mp4":
		return "audio/mp4"
	}
	return "application/octet-stream"
}

// SniffAudio names the container of audio by its first bytes: wav, mp3, ogg,
// flac, webm, m4a (mp4), aac (ADTS), or "" when it is none of them.
func SniffAudio(b []byte) string {
	switch {
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return "wav"
	case len(b) >= 4 && string(b[:4]) == "OggS":
		return "ogg"
	case len(b) >= 4 && string(b[:4]) == "fLaC":
		return "flac"
	case len(b) >= 4 && bytes.Equal(b[:4], []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return "webm"
	case len(b) >= 8 && string(b[4:8]) == "ftyp":
		return "m4a"
	case len(b) >= 3 && string(b[:3]) == "ID3":
		return "mp3"
	case len(b) >= 2 && b[0] == 0xFF && b[1]&0xF6 == 0xF0: // ADTS: MPEG-2/4, layer 0
		return "aac"
	case len(b) >= 2 && b[0] == 0xFF && b[1]&0xE0 == 0xE0:
		return "mp3"
	}
	return ""
}

// AudioFormatMatches reports whether audio sniffed as the container sniffed
// may be what a client declared as format (mp3 and mpga/mpeg, ogg and opus,
// m4a and mp4 and their kin are one container each).
func AudioFormatMatches(declared, sniffed string) bool {
	alias := map[string]string{"mpga": "mp3", "mpeg": "mp3", "opus": "ogg", "oga": "ogg", "mp4": "m4a", "x-m4a": "m4a", "wave": "wav"}
	if a, ok := alias[declared]; ok {
		declared = a
	}
	return declared == sniffed
}

// AudioSeconds is audio's duration in seconds, read from its container (WAV,
// MP3 frames, Ogg Opus or Vorbis granule, FLAC STREAMINFO). exact is false
// when it could not be read: the duration is then an upper bound from the
// size at AudioSizeBytesPerSecond.
func AudioSeconds(format string, b []byte) (seconds shlyuz.Decimal, exact bool) {
	var num, den int64
	switch format {
	case "wav":
		num, den = wavDuration(b)
	case "mp3":
		num, den = mp3Duration(b)
	case "ogg":
		num, den = oggDuration(b)
	case "flac":
		num, den = flacDuration(b)
	}
	if den > 0 && num > 0 {
		return shlyuz.NewDecimalFrac(num, den), true
	}
	return shlyuz.NewDecimalFrac(int64(len(b)), AudioSizeBytesPerSecond), false
}

// OpusChannels is the channel count in the OpusHead of an Ogg file's first
// page; ok is false when the Ogg holds no Opus.
func OpusChannels(b []byte) (channels int, ok bool) {
	i := bytes.Index(b[:min(len(b), 512)], []byte("OpusHead"))
	if i < 0 || i+10 > len(b) {
		return 0, false
	}
	return int(b[i+9]), true
}

// WAVInfo is a WAV file's format and sample data.
type WAVInfo struct {
	Rate, Channels, Bits int
	Data                 []byte // the data chunk's samples
}

// ParseWAV reads a PCM WAV file's format and data chunk.
func ParseWAV(b []byte) (WAVInfo, bool) {
	var w WAVInfo
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return w, false
	}
	fmtSeen := false
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:off+8]))
		body := b[off+8:]
		if size < 0 || size > len(body) {
			size = len(body) // a streamed WAV's sizes may be unset; take what is there
		}
		switch id {
		case "fmt ":
			if size < 16 || binary.LittleEndian.Uint16(body[0:2]) != 1 {
				return w, false
			}
			w.Channels = int(binary.LittleEndian.Uint16(body[2:4]))
			w.Rate = int(binary.LittleEndian.Uint32(body[4:8]))
			w.Bits = int(binary.LittleEndian.Uint16(body[14:16]))
			fmtSeen = true
		case "data":
			w.Data = body[:size]
			return w, fmtSeen && w.Rate > 0 && w.Channels > 0 && w.Bits > 0
		}
		off += 8 + size + size%2
	}
	return w, false
}

// WAVHeader is the 44-byte header of a PCM WAV file of dataLen bytes of
// 16-bit samples.
func WAVHeader(dataLen, rate, channels int) []byte {
	h := make([]byte, 44)
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+dataLen))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], uint16(channels))
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*channels*2))
	binary.LittleEndian.PutUint16(h[32:], uint16(channels*2))
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(dataLen))
	return h
}

func wavDuration(b []byte) (int64, int64) {
	w, ok := ParseWAV(b)
	if !ok {
		return 0, 0
	}
	return int64(len(w.Data)), int64(w.Rate * w.Channels * w.Bits / 8)
}

// mp3Duration walks MPEG audio frame headers (skipping an ID3v2 tag): the
// samples counted, over the sample rate.
func mp3Duration(b []byte) (int64, int64) {
	off := 0
	if len(b) >= 10 && string(b[:3]) == "ID3" {
		off = 10 + int(b[6]&0x7F)<<21 | int(b[7]&0x7F)<<14 | int(b[8]&0x7F)<<7 | int(b[9]&0x7F)
	}
	var samples, rate int64
	for off+4 <= len(b) {
		n, spf, r := mp3Frame(b[off : off+4])
		if n == 0 {
			break
		}
		if rate == 0 {
			rate = r
		}
		samples += spf
		off += n
	}
	return samples, rate
}

var (
	mp3Bitrates = [2][16]int{ // kbit/s, layer III: MPEG-1, MPEG-2/2.5
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0},
	}
	mp3Rates = [3][3]int{{44100, 48000, 32000}, {22050, 24000, 16000}, {11025, 12000, 8000}}
)

// mp3Frame reads a layer III frame header: its length in bytes, samples and
// sample rate; 0 when h is not one.
func mp3Frame(h []byte) (int, int64, int64) {
	if h[0] != 0xFF || h[1]&0xE0 != 0xE0 || (h[1]>>1)&3 != 1 { // sync, layer III
		return 0, 0, 0
	}
	version := (h[1] >> 3) & 3 // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
	bi, ri, pad := int(h[2]>>4), int(h[2]>>2)&3, int(h[2]>>1)&1
	if version == 1 || ri == 3 || bi == 0 || bi == 15 {
		return 0, 0, 0
	}
	v, spf := 0, 1152
	if version != 3 {
		v, spf = 1, 576
	}
	rateRow := map[byte]int{3: 0, 2: 1, 0: 2}[version]
	rate := mp3Rates[rateRow][ri]
	n := spf/8*mp3Bitrates[v][bi]*1000/rate + pad
	return n, int64(spf), int64(rate)
}

// oggDuration is the last page's granule position (less Opus's pre-skip)
// over the stream's rate (48 kHz for Opus, the header's for Vorbis).
func oggDuration(b []byte) (int64, int64) {
	var rate, preSkip, granule int64
	for off := 0; off+27 <= len(b) && string(b[off:off+4]) == "OggS"; {
		segs := int(b[off+26])
		if off+27+segs > len(b) {
			break
		}
		size := 0
		for _, s := range b[off+27 : off+27+segs] {
			size += int(s)
		}
		body := b[off+27+segs : min(len(b), off+27+segs+size)]
		if g := int64(binary.LittleEndian.Uint64(b[off+6 : off+14])); g > 0 {
			granule = g
		}
		switch {
		case len(body) >= 19 && string(body[:8]) == "OpusHead":
			rate, preSkip = 48000, int64(binary.LittleEndian.Uint16(body[10:12]))
		case len(body) >= 16 && string(body[:7]) == "\x01vorbis":
			rate = int64(binary.LittleEndian.Uint32(body[12:16]))
		}
		off += 27 + segs + size
	}
	return granule - preSkip, rate
}

// flacDuration reads STREAMINFO's sample rate and total samples.
func flacDuration(b []byte) (int64, int64) {
	if len(b) < 8+34 || string(b[:4]) != "fLaC" || b[4]&0x7F != 0 {
		return 0, 0
	}
	si := b[8:]
	rate := int64(si[10])<<12 | int64(si[11])<<4 | int64(si[12])>>4
	total := int64(si[13]&0x0F)<<32 | int64(binary.BigEndian.Uint32(si[14:18]))
	return total, rate
}
