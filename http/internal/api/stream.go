package api

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// StreamSink is how one client protocol writes a stream: its events, its
// keep-alive and its end. The machinery around it (reading the upstream on
// its own goroutine, heartbeats, a gone client, settlement) is the same for
// every protocol.
type StreamSink interface {
	// Event writes one upstream event (nothing when it carries nothing for
	// this protocol).
	Event(w *bufio.Writer, ev *shlyuz.StreamEvent)
	KeepAlive(w *bufio.Writer)
	// End writes the stream's end after the settlement: the usage when
	// outcome is nil (receipt is then set), the failure otherwise. It is not
	// called when the client went away.
	End(w *bufio.Writer, outcome error, receipt *actors.Receipt)
}

type streamStep struct {
	ev  shlyuz.StreamEvent
	err error
}

// ServeStream answers c with the open stream st through sink.
func (s *Server) ServeStream(c *fiber.Ctx, st *actors.Stream, id string, sink StreamSink) {
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	SetDecidedMaxTokens(c, st.MaxTokens())
	heartbeat := s.Opts.Heartbeat
	s.Streams.Add(1)
	log := s.Log
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer s.Streams.Done()
		defer func() { // the writer runs outside the handler, beyond Fiber's recover
			if r := recover(); r != nil {
				log.Error("stream writer panicked", "generation", id, "panic", r)
				st.Finish(fmt.Errorf("stream writer panicked: %v", r))
			}
		}()
		steps := make(chan streamStep, 64)
		stop := make(chan struct{})
		go func() {
			defer func() { // an adapter's bug ends this stream, not the gateway
				if r := recover(); r != nil {
					log.Error("stream reader panicked", "generation", id, "panic", r)
					select {
					case steps <- streamStep{err: shlyuz.ErrUpstream("The upstream's stream could not be read.")}:
					case <-stop:
					}
				}
			}()
			for {
				ev, err := st.Next()
				select {
				case steps <- streamStep{ev, err}:
				case <-stop:
					return
				}
				if err != nil {
					return
				}
			}
		}()
		outcome := pump(w, steps, heartbeat, sink)
		close(stop)
		receipt := st.Finish(outcome)
		if outcome == nil && receipt != nil && receipt.Err != nil {
			outcome = receipt.Err // durable settlement refused: no usage, no normal end
		}
		if outcome == nil || !errors.Is(outcome, actors.ErrClientGone) {
			sink.End(w, outcome, receipt)
		}
		_ = w.Flush()
	})
}

// pump writes the upstream's events until the end, a failure or a gone client,
// with the sink's keep-alive whenever the stream is idle.
func pump(w *bufio.Writer, steps <-chan streamStep, heartbeat time.Duration, sink StreamSink) error {
	idle := time.NewTimer(heartbeat)
	defer idle.Stop()
	for {
		select {
		case st := <-steps:
			if st.err != nil {
				if errors.Is(st.err, io.EOF) {
					return nil
				}
				return st.err
			}
			sink.Event(w, &st.ev)
			if len(steps) > 0 || w.Buffered() == 0 {
				continue // more is waiting: flush once for the lot
			}
			if err := w.Flush(); err != nil {
				return actors.ErrClientGone
			}
			idle.Reset(heartbeat)
		case <-idle.C:
			sink.KeepAlive(w)
			if err := w.Flush(); err != nil {
				return actors.ErrClientGone
			}
			idle.Reset(heartbeat)
		}
	}
}
