package yandex

import (
	"bufio"
	"errors"
	"io"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// maxObject bounds one stream object (it repeats the whole text so far).
const maxObject = 64 << 20

// Framing failures of the stream body.
var (
	errFraming   = errors.New("yandex: the stream is not a sequence of JSON objects")
	errTooLarge  = errors.New("yandex: a stream object is too large")
	errDone      = errors.New("yandex: [DONE]")
	errTruncated = errors.New("yandex: the stream ended inside an object")
)

// stream reads a native stream: JSON objects one after another, normally one
// per line. It also takes them framed as SSE ("data: {…}", comments, event
// names, a [DONE] marker), pretty-printed over several lines, or as the
// elements of a JSON array. Next is called from one goroutine; Close may be
// called from any goroutine at any time.
type stream struct {
	st   upstream.Stream
	name string // the upstream's
	body *upstream.Body
	ch   *chunker
	now  func() time.Time

	buf []byte // the object being read
}

func newStream(name string, body *upstream.Body, ch *chunker, now func() time.Time) *stream {
	return &stream{st: upstream.NewStream(body), name: name, body: body, ch: ch, now: now}
}

// Next returns the next chunk, io.EOF at the end of the stream, an *Error
// when the upstream failed, or the caller's context error (ErrStreamClosed
// after Close) when the stream was given up.
func (s *stream) Next() (shlyuz.StreamEvent, error) {
	return s.st.Next(s.next, s.forget)
}

// Close releases the connection. It is idempotent and unblocks a Next waiting on the upstream.
func (s *stream) Close() error {
	return s.st.Close()
}

// forget drops the buffer once the stream has ended.
func (s *stream) forget() {
	s.buf = nil
}

func (s *stream) next() (shlyuz.StreamEvent, error) {
	for { // Next watched the first read; each skipped object is activity too
		obj, err := s.readObject()
		switch {
		case err == io.EOF && !s.body.Cancelled():
			if s.ch.finished {
				return shlyuz.StreamEvent{}, io.EOF
			}
			return shlyuz.StreamEvent{}, upstream.EndedEarly()
		case err == errDone:
			if !s.ch.finished {
				return shlyuz.StreamEvent{}, upstream.EndedEarly()
			}
			return shlyuz.StreamEvent{}, io.EOF // Next reads the rest
		case err != nil:
			return shlyuz.StreamEvent{}, s.readError(err)
		}
		env, res, jerr := decodeEnvelope(obj)
		if jerr != nil {
			e := upstream.Malformed("a stream object " + jsonProblem(obj))
			e.Cause = jerr
			return shlyuz.StreamEvent{}, e
		}
		if present(env.Error) {
			return shlyuz.StreamEvent{}, streamError(s.name, env.Error, s.ch.started, s.now())
		}
		ev, skip, cerr := s.ch.step(res)
		if cerr != nil {
			return shlyuz.StreamEvent{}, cerr
		}
		if !skip {
			return ev, nil
		}
		s.body.Watch()
	}
}

// readObject returns the next JSON object of the body (valid until the next
// read), io.EOF at a clean end between objects, errDone at a [DONE] marker.
func (s *stream) readObject() ([]byte, error) {
	for {
		c, err := s.body.R.ReadByte()
		if err != nil {
			return nil, err
		}
		switch c {
		case ' ', '\t', '\r', '\n', ',', ']':
			continue
		case '{':
			return s.readRest()
		case '[':
			if b, _ := s.body.R.Peek(5); string(b) == "DONE]" {
				_, _ = s.body.R.Discard(5)
				return nil, errDone
			}
			continue // a stream framed as a JSON array
		case ':': // an SSE comment, a keep-alive
			if err := s.skipLine(); err != nil {
				return nil, err
			}
			continue
		}
		// An SSE field: "data:" goes on to its value; event:, id:, retry: carry nothing.
		var name [8]byte
		n := 0
		for c != ':' {
			if c == '\n' || n == len(name) {
				return nil, errFraming
			}
			name[n] = c
			n++
			if c, err = s.body.R.ReadByte(); err != nil {
				return nil, eofInside(err)
			}
		}
		switch string(name[:n]) {
		case "data":
			if b, _ := s.body.R.Peek(1); len(b) == 1 && b[0] == ' ' {
				_, _ = s.body.R.Discard(1)
			}
		case "event", "id", "retry":
			if err := s.skipLine(); err != nil {
				return nil, err
			}
		default:
			return nil, errFraming
		}
	}
}

// readRest reads an object after its opening brace, up to its closing brace.
func (s *stream) readRest() ([]byte, error) {
	buf := append(s.buf[:0], '{')
	depth, inString, escaped := 1, false, false
	for {
		c, err := s.body.R.ReadByte()
		if err != nil {
			return nil, eofInside(err)
		}
		buf = append(buf, c)
		if len(buf) > maxObject {
			return nil, errTooLarge
		}
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			case c == '\n':
				return nil, errFraming // a raw newline never occurs inside a JSON string
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.buf = buf
				return buf, nil
			}
		}
	}
}

func (s *stream) skipLine() error {
	for {
		_, err := s.body.R.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			return nil // the end comes on the next read
		}
		return err
	}
}

func eofInside(err error) error {
	if err == io.EOF {
		return errTruncated
	}
	return err
}

// readError maps a failed read of the stream.
func (s *stream) readError(err error) error {
	switch err {
	case errFraming:
		return upstream.Malformed("the stream is not a sequence of JSON objects")
	case errTooLarge:
		return shlyuz.ErrUpstream("The upstream sent a stream object larger than %d bytes.", maxObject)
	case errTruncated:
		return shlyuz.ErrUpstream("The upstream broke off its reply in the middle of an object.")
	}
	return s.body.ReadError(err)
}
