package yandex

import (
	"encoding/binary"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
)

// Conversions of streamed 16-bit mono PCM: a WAV header ahead of it, and its
// rate halved.

// streamWAVHeader is the header of a streamed WAV of 16-bit mono PCM at
// rate: its sizes unknown (all ones), as streamed WAV files have them.
func streamWAVHeader(rate int) []byte {
	h := media.WAVHeader(0, rate, 1)
	binary.LittleEndian.PutUint32(h[4:], 0xFFFFFFFF)
	binary.LittleEndian.PutUint32(h[40:], 0xFFFFFFFF)
	return h
}

// withHeader is audio with head read before it.
type withHeader struct {
	shlyuz.SpeechAudio
	head []byte
}

func (a *withHeader) Read(p []byte) (int, error) {
	if len(a.head) > 0 {
		n := copy(p, a.head)
		a.head = a.head[n:]
		return n, nil
	}
	return a.SpeechAudio.Read(p)
}

// halfRate is 16-bit little-endian mono PCM at half the rate of the PCM it
// reads, each two samples averaged (which also filters what the lower rate
// cannot carry).
type halfRate struct {
	shlyuz.SpeechAudio
	buf [8192]byte
	in  []byte // read, not yet a whole pair of samples
	out []byte // converted; out[pos:] is not yet read
	pos int
	err error
}

func (a *halfRate) Read(p []byte) (int, error) {
	for a.pos == len(a.out) {
		if a.err != nil {
			return 0, a.err
		}
		n, err := a.SpeechAudio.Read(a.buf[:])
		a.in = append(a.in, a.buf[:n]...)
		whole := len(a.in) / 4 * 4
		a.out, a.pos = a.out[:0], 0
		for i := 0; i < whole; i += 4 {
			s := (int32(int16(binary.LittleEndian.Uint16(a.in[i:]))) + int32(int16(binary.LittleEndian.Uint16(a.in[i+2:])))) / 2
			a.out = binary.LittleEndian.AppendUint16(a.out, uint16(int16(s)))
		}
		a.in = append(a.in[:0], a.in[whole:]...)
		a.err = err
	}
	n := copy(p, a.out[a.pos:])
	a.pos += n
	return n, nil
}
