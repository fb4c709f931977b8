package gemini

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/shlyuz/shlyuz"
)

const (
	readerSize = 8 << 10  // typical chunks are a few hundred bytes; longer lines spill into stream.long
	maxLine    = 64 << 20 // a single SSE line (an image chunk) may be megabytes, never more than this
	drainLimit = 64 << 10 // read after the end so the connection goes back to the pool
)

var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerSize) }}

// stream reads a Gemini alt=sse stream: "data: <GenerateContentResponse>"
// events, no [DONE], the end is the connection's close. Next is called from
// one goroutine; Close may be called from any goroutine at any time.
type stream struct {
	upstream string
	parent   context.Context // the caller's context
	ctx      context.Context // the request's context, cancelled with a cause
	cancel   context.CancelCauseFunc
	body     io.ReadCloser
	closed   sync.Once

	br          *bufio.Reader
	ck          *chunker
	idleTimeout time.Duration
	idle        *time.Timer

	data []byte // the data of the event being read
	long []byte // a line longer than br's buffer
	err  error  // sticky: once set, Next returns it
}

func newStream(upstream string, parent, ctx context.Context, cancel context.CancelCauseFunc,
	body io.ReadCloser, idleTimeout time.Duration, ck *chunker) *stream {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(body)
	s := &stream{
		upstream:    upstream,
		parent:      parent,
		ctx:         ctx,
		cancel:      cancel,
		body:        body,
		br:          br,
		ck:          ck,
		idleTimeout: idleTimeout,
	}
	s.idle = time.AfterFunc(time.Hour, func() { cancel(errIdle) })
	s.idle.Stop()
	return s
}

// Next returns the next chunk, io.EOF at the end of the stream, an *Error
// when the upstream failed, or the caller's context error (ErrStreamClosed
// after Close) when the stream was given up.
func (s *stream) Next() (shlyuz.StreamEvent, error) {
	if s.err != nil {
		return shlyuz.StreamEvent{}, s.err
	}
	s.idle.Reset(s.idleTimeout)
	ev, err := s.next()
	s.idle.Stop()
	if err != nil {
		s.finish(err)
		return shlyuz.StreamEvent{}, err
	}
	return ev, nil
}

// Close releases the connection. It is idempotent and unblocks a Next waiting on the upstream.
func (s *stream) Close() error {
	s.cancel(ErrStreamClosed)
	s.closeBody()
	return nil
}

func (s *stream) closeBody() {
	s.closed.Do(func() { s.body.Close() })
}

// finish ends the stream with err; it runs on Next's goroutine.
func (s *stream) finish(err error) {
	s.err = err
	s.idle.Stop()
	if err == io.EOF {
		s.idle.Reset(s.idleTimeout)
		_, _ = io.CopyN(io.Discard, s.br, drainLimit)
		s.idle.Stop()
	}
	s.closeBody()
	s.cancel(context.Canceled)
	s.br.Reset(nil)
	readerPool.Put(s.br)
	s.br = nil
	s.data, s.long = nil, nil
}

func (s *stream) next() (shlyuz.StreamEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && context.Cause(s.ctx) == nil {
				return s.atEOF()
			}
			return shlyuz.StreamEvent{}, s.readError(err)
		}
		if len(line) == 0 { // end of an event
			if len(s.data) == 0 {
				continue
			}
			ev, skip, err := s.dispatch()
			if skip && err == nil {
				continue
			}
			return ev, err
		}
		switch line[0] {
		case ':': // a comment: the upstream is alive
			s.idle.Reset(s.idleTimeout)
			continue
		case '{': // a bare JSON line: Google's SDK reads it as an error object
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
		if string(field) == "data" {
			if len(s.data) > 0 {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
		}
		// event:, id:, retry: and unknown fields carry nothing here.
	}
}

// atEOF handles the upstream closing the stream: the normal end once a
// candidate finished, a cut otherwise.
func (s *stream) atEOF() (shlyuz.StreamEvent, error) {
	if len(s.data) > 0 {
		ev, skip, err := s.dispatch()
		if err != nil || !skip {
			return ev, err
		}
	}
	if s.ck.finished {
		return shlyuz.StreamEvent{}, io.EOF
	}
	return shlyuz.StreamEvent{}, shlyuz.ErrUpstream("The upstream ended the stream before it finished.")
}

// dispatch handles the data of one event; skip means it produced nothing to send.
func (s *stream) dispatch() (ev shlyuz.StreamEvent, skip bool, err error) {
	payload := bytes.TrimSpace(s.data)
	defer func() { s.data = s.data[:0] }()
	if len(payload) == 0 {
		return ev, true, nil
	}
	var w wireResponse
	if jerr := json.Unmarshal(payload, &w); jerr != nil {
		e := malformed("a stream chunk is not valid JSON")
		e.Cause = jerr
		return ev, false, e
	}
	ev, skip, serr := s.ck.convert(&w)
	if serr != nil {
		return ev, false, serr
	}
	return ev, skip, nil
}

var errLineTooLong = errors.New("an SSE line is too long")

// readLine reads one line without its line ending; the slice is valid until the next read.
func (s *stream) readLine() ([]byte, error) {
	line, err := s.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.long = append(s.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(s.long) > maxLine {
				return nil, errLineTooLong
			}
			line, err = s.br.ReadSlice('\n')
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
func (s *stream) readError(err error) error {
	if err == errLineTooLong {
		return shlyuz.ErrUpstream("The upstream sent a stream line longer than %d bytes.", maxLine)
	}
	cause := context.Cause(s.ctx)
	if cause == ErrStreamClosed {
		return ErrStreamClosed
	}
	return transportError(s.upstream, s.parent, cause, err, true)
}
