package yandex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// maxChunkLine bounds one line of v3's synthesis stream (a base64 chunk).
const maxChunkLine = 16 << 20

// chunkedAudio is the audio of v3's synthesis stream: newline-delimited
// {"result":{"audioChunk":{"data":"<base64>"},…}} objects (or an
// {"error":{…}} one), decoded and handed out chunk by chunk as they arrive.
type chunkedAudio struct {
	b       *upstream.Body
	name    string
	now     func() time.Time
	pending []byte // decoded, not yet read
	started bool   // some audio was decoded
	err     error  // how the stream ended, once it did
	closed  atomic.Bool
}

var _ shlyuz.SpeechAudio = (*chunkedAudio)(nil)

// Read reads the audio as it arrives.
func (a *chunkedAudio) Read(p []byte) (int, error) {
	if a.closed.Load() {
		return 0, ErrStreamClosed
	}
	for len(a.pending) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		a.pending, a.err = a.next()
	}
	n := copy(p, a.pending)
	a.pending = a.pending[n:]
	return n, nil
}

// Usage is nil: speech is billed by characters.
func (a *chunkedAudio) Usage() *shlyuz.AudioUsage { return nil }

// Close stops the upstream call; Read then fails with ErrStreamClosed.
func (a *chunkedAudio) Close() error {
	a.closed.Store(true)
	return a.b.Close()
}

// next reads the stream up to its next audio chunk; at the end or on a
// failure it releases the body and returns io.EOF or the error.
func (a *chunkedAudio) next() ([]byte, error) {
	for {
		a.b.Watch()
		line, err := readLine(a.b)
		a.b.Unwatch()
		if line = bytes.TrimSpace(line); len(line) > 0 {
			chunk, e := a.decode(line)
			if e != nil {
				a.b.Release()
				return nil, e
			}
			if len(chunk) > 0 {
				a.started = true
				return chunk, nil
			}
		}
		switch {
		case err == io.EOF && !a.b.Cancelled():
			a.b.Release()
			if !a.started {
				return nil, upstream.Malformed("the stream holds no audio")
			}
			return nil, io.EOF
		case err != nil:
			var e *shlyuz.Error
			if !errors.As(err, &e) { // not readLine's refusal of an overlong line: the read failed
				err = a.b.ReadError(err)
			}
			a.b.Release()
			return nil, err
		}
	}
}

// readLine reads one line, up to maxChunkLine bytes.
func readLine(b *upstream.Body) ([]byte, error) {
	var line []byte
	for {
		frag, err := b.R.ReadSlice('\n')
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
		if len(line) > maxChunkLine {
			return nil, upstream.Malformed("a line of the stream is longer than 16 MB")
		}
	}
}

// decode reads one object of the stream: its audio, or its error.
func (a *chunkedAudio) decode(line []byte) ([]byte, error) {
	type chunk struct {
		AudioChunk *struct {
			Data []byte `json:"data"`
		} `json:"audioChunk"`
	}
	var ev struct {
		Result *chunk          `json:"result"`
		Error  json.RawMessage `json:"error"`
		chunk
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		return nil, upstream.Malformed("a line of the stream is not a synthesis result: " + upstream.Clip(string(line)))
	}
	if len(ev.Error) > 0 && string(ev.Error) != "null" {
		return nil, streamError(a.name, ev.Error, a.started, a.now())
	}
	c := ev.chunk // a bare message, without the REST wrapping
	if ev.Result != nil {
		c = *ev.Result
	}
	if c.AudioChunk == nil {
		return nil, nil
	}
	return c.AudioChunk.Data, nil
}
