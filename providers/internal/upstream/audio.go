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
	b   *Body
	err error // the outcome once the body ended: io.EOF or the failure, given again by every later Read
}

var _ shlyuz.SpeechAudio = (*RawAudio)(nil)

// NewRawAudio reads the audio from b, which it owns from then on.
func NewRawAudio(b *Body) *RawAudio { return &RawAudio{b: b} }

// Read reads the next audio bytes as they arrive.
func (a *RawAudio) Read(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	a.b.Watch()
	n, err := a.b.R.Read(p)
	a.b.Unwatch()
	switch {
	case err == io.EOF && !a.b.Cancelled():
		a.err = io.EOF
	case err != nil:
		a.err = a.b.ReadError(err)
	default:
		return n, nil
	}
	a.b.Release()
	return n, a.err
}

// Usage is nil: a raw audio stream carries none.
func (a *RawAudio) Usage() *shlyuz.AudioUsage { return nil }

// Close stops the upstream call; Read then fails with the adapter's Closed error.
func (a *RawAudio) Close() error { return a.b.Close() }
