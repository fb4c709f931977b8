package upstream

import (
	"io"

	"github.com/shlyuz/shlyuz"
)

// RawAudio is a shlyuz.SpeechAudio over a streamed reply whose body is the
// audio itself (OpenAI's, SpeechKit v1's, SaluteSpeech's speech): each Read
// waits at most the upstream's IdleTimeout; a failure after the first bytes
// is the adapter's transport error; it reports no usage.
type RawAudio struct {
	b    *Body
	done bool
}

var _ shlyuz.SpeechAudio = (*RawAudio)(nil)

// NewRawAudio reads the audio from b, which it owns from then on.
func NewRawAudio(b *Body) *RawAudio { return &RawAudio{b: b} }

// Read reads the next audio bytes as they arrive.
func (a *RawAudio) Read(p []byte) (int, error) {
	if a.done {
		return 0, io.EOF
	}
	a.b.Watch()
	n, err := a.b.R.Read(p)
	a.b.Unwatch()
	switch {
	case err == io.EOF && !a.b.Cancelled():
		a.done = true
		a.b.Release()
		return n, io.EOF
	case err != nil:
		e := a.b.ReadError(err)
		a.done = true
		a.b.Release()
		return n, e
	}
	return n, nil
}

// Usage is nil: a raw audio stream carries none.
func (a *RawAudio) Usage() *shlyuz.AudioUsage { return nil }

// Close stops the upstream call; Read then fails with the adapter's Closed error.
func (a *RawAudio) Close() error { return a.b.Close() }
