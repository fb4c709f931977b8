package upstream

import (
	"io"

	"github.com/shlyuz/shlyuz"
)

// Stream is what every protocol's shlyuz.ChatStream over a Body does alike:
// each read bounded by the idle timeout, the first failure returned by every
// later Next, and the body released on Next's goroutine once the stream ends
// (read to its end first after a whole reply, so that the connection is
// reused). Next is called from one goroutine; Close may be called from any
// goroutine at any time.
type Stream struct {
	body *Body
	err  error // sticky: once set, Next returns it
}

// NewStream is a Stream over body.
func NewStream(body *Body) Stream { return Stream{body: body} }

// Next returns read's next event: io.EOF at the end of the stream, an *Error
// when the upstream failed, or the caller's context error (the adapter's
// Closed error after Close) when the stream was given up. Once read fails,
// forget is called to drop what read holds.
func (s *Stream) Next(read func() (shlyuz.StreamEvent, error), forget func()) (shlyuz.StreamEvent, error) {
	if s.err != nil {
		return shlyuz.StreamEvent{}, s.err
	}
	s.body.Watch()
	ev, err := read()
	s.body.Unwatch()
	if err != nil {
		s.finish(err)
		forget()
		return shlyuz.StreamEvent{}, err
	}
	return ev, nil
}

// Close releases the connection. It is idempotent and unblocks a Next waiting on the upstream.
func (s *Stream) Close() error {
	return s.body.Close()
}

// finish ends the stream with err; it runs on Next's goroutine.
func (s *Stream) finish(err error) {
	s.err = err
	if err == io.EOF {
		// Read the rest (the chunked terminator) so the connection can be reused.
		s.body.Watch()
		s.body.Drain()
		s.body.Unwatch()
	}
	s.body.Release()
}
