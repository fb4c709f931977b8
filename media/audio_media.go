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

// AudioSeconds is how long audio plays, read by walking its content the way
// decoders read it (audio_bounds.go): every MPEG frame header, Ogg page and
// FLAC frame header a decoder could play, the bytes of a PCM WAV's samples up
// to the end of the file. A container's header alone (an Ogg's last granule,
// FLAC's STREAMINFO total, a WAV's data size) never sets it, and it is never
// below what a decoder plays. measured is false when the content could not
// be walked (an unknown container, no frame found, a codec inside WAV or Ogg
// the walk does not know): the duration is then the size at
// AudioSizeBytesPerSecond, which bounds only the speech codecs at ordinary
// bit rates.
func AudioSeconds(format string, b []byte) (seconds shlyuz.Decimal, measured bool) {
	var d shlyuz.Decimal
	var ok bool
	switch format {
	case "wav":
		d, ok = wavBound(b)
	case "mp3":
		d, ok = mp3Bound(b)
	case "ogg":
		d, ok = oggBound(b)
	case "flac":
		d, ok = flacBound(b)
	}
	if ok && d.Sign() > 0 {
		return d, true
	}
	return shlyuz.NewDecimalFrac(int64(len(b)), AudioSizeBytesPerSecond), false
}

// AudioWalked reports whether AudioSeconds walks the frames of format (a
// sniffed container): for those, audio it cannot measure is refused rather
// than priced by its size.
func AudioWalked(format string) bool {
	switch format {
	case "wav", "mp3", "ogg", "flac":
		return true
	}
	return false
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
