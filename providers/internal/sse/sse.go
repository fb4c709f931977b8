// Package sse reads an upstream's Server-Sent Events stream into the
// gateway's stream events: lines read with bounded memory, comments skipped
// (as keep-alives), the data lines of an event joined, a bare JSON line taken
// as an event of its own (the error body some servers send in place of the
// stream), every wait bounded by the idle timeout, and Close safe from any
// goroutine at any time. What the events mean is the protocol's: a Decoder
// turns them into chunks.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// DefaultMaxLine bounds a line when Config.MaxLine is 0: one SSE line (an
// image chunk) may be megabytes, never more than this.
const DefaultMaxLine = 64 << 20

// Config is what sets one protocol's stream apart.
type Config struct {
	// MaxLine bounds a line of the stream; 0 means DefaultMaxLine.
	MaxLine int
	// DataSep joins the data lines of one event: '\n', as SSE says, when 0.
	// For JSON a space is the same white space and keeps the chunk on one line.
	DataSep byte
	// QuietComments: comments are skipped without starting the idle timeout
	// over. By default a comment (a keep-alive) shows the upstream is alive.
	QuietComments bool
	// SkipsAlive: an event that the Decoder skips (a ping) starts the idle
	// timeout over.
	SkipsAlive bool
}

// Event is one event of the stream, valid until the next read.
type Event struct {
	Name []byte // its event: field, empty when it has none
	Data []byte // its data lines joined, trimmed of white space; may be empty
}

// Decoder is one protocol's reading of the events.
type Decoder interface {
	// Decode turns an event into a stream event; skip means it carried
	// nothing to send. io.EOF ends the stream as a whole reply; any other
	// error ends it as a failure.
	Decode(ev Event) (out shlyuz.StreamEvent, skip bool, err error)
	// End is called when the upstream closed the stream, after the event it
	// left unfinished: io.EOF when the reply is whole, an error when it was cut.
	End() error
}

// Stream is a shlyuz.ChatStream over an SSE body. Next is called from one
// goroutine; Close may be called from any goroutine at any time.
type Stream struct {
	st   upstream.Stream
	body *upstream.Body
	dec  Decoder
	cfg  Config

	name []byte // the event: of the event being read
	data []byte // its data
	long []byte // a line longer than the reader's buffer
}

// NewStream reads body's events through dec.
func NewStream(body *upstream.Body, dec Decoder, cfg Config) *Stream {
	if cfg.MaxLine == 0 {
		cfg.MaxLine = DefaultMaxLine
	}
	if cfg.DataSep == 0 {
		cfg.DataSep = '\n'
	}
	return &Stream{st: upstream.NewStream(body), body: body, dec: dec, cfg: cfg}
}

// Next returns the next chunk, io.EOF at the end of the stream, an *Error
// when the upstream failed, or the caller's context error (the adapter's
// ErrStreamClosed after Close) when the stream was given up.
func (s *Stream) Next() (shlyuz.StreamEvent, error) {
	return s.st.Next(s.next, s.forget)
}

// Close releases the connection. It is idempotent and unblocks a Next waiting on the upstream.
func (s *Stream) Close() error {
	return s.st.Close()
}

// forget drops the buffers once the stream has ended.
func (s *Stream) forget() {
	s.name, s.data, s.long = nil, nil, nil
}

func (s *Stream) next() (shlyuz.StreamEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && !s.body.Cancelled() {
				return s.atEOF()
			}
			return shlyuz.StreamEvent{}, s.readError(err)
		}
		if len(line) == 0 { // the end of an event
			if len(s.data) == 0 && len(s.name) == 0 {
				continue
			}
			ev, skip, err := s.dispatch()
			if skip && err == nil {
				if s.cfg.SkipsAlive {
					s.body.Watch()
				}
				continue
			}
			return ev, err
		}
		switch line[0] {
		case ':': // a comment, a keep-alive
			if !s.cfg.QuietComments {
				s.body.Watch()
			}
			continue
		case '{': // a bare JSON line: a server that does not frame its stream, or an error body
			if len(s.data) == 0 {
				s.data = append(s.data, line...)
				ev, skip, err := s.dispatch()
				if skip && err == nil {
					continue
				}
				return ev, err
			}
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "event":
			s.name = append(s.name[:0], value...)
		case "data":
			if len(s.data) > 0 {
				s.data = append(s.data, s.cfg.DataSep)
			}
			s.data = append(s.data, value...)
		}
		// id:, retry: and unknown fields carry nothing for chat.
	}
}

// atEOF handles the upstream closing the stream.
func (s *Stream) atEOF() (shlyuz.StreamEvent, error) {
	if len(s.data) > 0 || len(s.name) > 0 {
		ev, skip, err := s.dispatch()
		if err != nil || !skip {
			return ev, err
		}
	}
	return shlyuz.StreamEvent{}, s.dec.End()
}

// dispatch hands the event read to the decoder and starts the next one.
func (s *Stream) dispatch() (shlyuz.StreamEvent, bool, error) {
	ev := Event{Name: s.name, Data: bytes.TrimSpace(s.data)}
	defer func() { s.name, s.data = s.name[:0], s.data[:0] }()
	return s.dec.Decode(ev)
}

var errLineTooLong = errors.New("an SSE line is too long")

// readLine reads one line without its line ending; the slice is valid until the next read.
func (s *Stream) readLine() ([]byte, error) {
	br := s.body.R
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.long = append(s.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(s.long) > s.cfg.MaxLine {
				return nil, errLineTooLong
			}
			line, err = br.ReadSlice('\n')
			s.long = append(s.long, line...)
		}
		line = s.long
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = nil // a last line without a line ending; EOF comes on the next read
		} else {
			return nil, err
		}
	}
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// readError maps a failed read of the stream.
func (s *Stream) readError(err error) error {
	if err == errLineTooLong {
		return shlyuz.ErrUpstream("The upstream sent a stream line longer than %d bytes.", s.cfg.MaxLine)
	}
	return s.body.ReadError(err)
}
