package anthropic

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
	readerSize = 8 << 10  // typical events are a few hundred bytes; longer lines spill into stream.long
	maxLine    = 64 << 20 // a single SSE line, never more than this
	drainLimit = 64 << 10 // read after message_stop so the connection goes back to the pool
)

var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerSize) }}

// stream reads an Anthropic SSE stream and emits OpenAI chunks. Next is
// called from one goroutine; Close may be called from any goroutine at any time.
type stream struct {
	upstream string
	parent   context.Context // the caller's context
	ctx      context.Context // the request's context, cancelled with a cause
	cancel   context.CancelCauseFunc
	body     io.ReadCloser
	closed   sync.Once

	br          *bufio.Reader
	cw          *chunkWriter
	idleTimeout time.Duration
	idle        *time.Timer

	event []byte // the name of the event being read
	data  []byte // its data
	long  []byte // a line longer than br's buffer
	err   error  // sticky: once set, Next returns it

	usage    streamUsage
	tools    map[int]*toolBlock // content block index → the tool call it streams
	nTools   int
	finished bool // a message_delta said why the message stopped
}

// toolBlock is a tool_use content block being streamed.
type toolBlock struct {
	index     int             // the tool call's index in OpenAI's tool_calls
	input     json.RawMessage // the input of content_block_start, when not empty
	gotDeltas bool
}

func newStream(upstream string, parent, ctx context.Context, cancel context.CancelCauseFunc,
	body io.ReadCloser, idleTimeout time.Duration, cw *chunkWriter) *stream {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(body)
	s := &stream{
		upstream:    upstream,
		parent:      parent,
		ctx:         ctx,
		cancel:      cancel,
		body:        body,
		br:          br,
		cw:          cw,
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
		// Read the rest (the chunked terminator) so the connection can be reused.
		s.idle.Reset(s.idleTimeout)
		_, _ = io.CopyN(io.Discard, s.br, drainLimit)
		s.idle.Stop()
	}
	s.closeBody()
	s.cancel(context.Canceled)
	s.br.Reset(nil)
	readerPool.Put(s.br)
	s.br = nil
	s.event, s.data, s.long = nil, nil, nil
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
			if len(s.data) == 0 && len(s.event) == 0 {
				continue
			}
			ev, skip, err := s.dispatch()
			if skip && err == nil {
				s.idle.Reset(s.idleTimeout) // a ping or a bookkeeping event: the upstream is alive
				continue
			}
			return ev, err
		}
		switch line[0] {
		case ':': // an SSE comment, a keep-alive
			s.idle.Reset(s.idleTimeout)
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
			s.event = append(s.event[:0], value...)
		case "data":
			if len(s.data) > 0 {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
		}
		// id:, retry: and unknown fields carry nothing for chat.
	}
}

// atEOF handles the upstream closing the stream without message_stop.
func (s *stream) atEOF() (shlyuz.StreamEvent, error) {
	if len(s.data) > 0 || len(s.event) > 0 {
		ev, skip, err := s.dispatch()
		if err != nil || !skip {
			return ev, err
		}
	}
	if s.finished {
		// Everything but the closing message_stop arrived: the reply is whole.
		return shlyuz.StreamEvent{}, io.EOF
	}
	return shlyuz.StreamEvent{}, shlyuz.ErrUpstream("The upstream ended the stream before it finished.")
}

// wireEvent is the data of any stream event; each event type fills its part.
type wireEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Text  json.RawMessage `json:"text"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string          `json:"type"`
		Text        json.RawMessage `json:"text"`
		PartialJSON json.RawMessage `json:"partial_json"`
		StopReason  *string         `json:"stop_reason"`
	} `json:"delta"`
	Usage *deltaUsage     `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// dispatch handles one event; skip means it produced nothing to send.
func (s *stream) dispatch() (ev shlyuz.StreamEvent, skip bool, err error) {
	payload := bytes.TrimSpace(s.data)
	name := string(s.event)
	defer func() { s.data, s.event = s.data[:0], s.event[:0] }()
	if name == "ping" {
		return ev, true, nil
	}
	if len(payload) == 0 {
		if name == "message_stop" {
			return ev, false, io.EOF
		}
		return ev, true, nil
	}
	var w wireEvent
	if err := json.Unmarshal(payload, &w); err != nil {
		e := malformed("a stream event is not valid JSON")
		e.Cause = err
		return ev, false, e
	}
	if name == "" {
		name = w.Type
	}
	switch name {
	case "message_start":
		if w.Message != nil {
			s.usage.start(w.Message.Usage)
		}
		return s.emit(s.cw.role(), 0), false, nil

	case "content_block_start":
		cb := w.ContentBlock
		if cb == nil {
			return ev, false, malformed("a content_block_start has no content block")
		}
		switch cb.Type {
		case "text":
			if nonEmptyString(cb.Text) {
				return s.emit(s.cw.text(cb.Text), 1), false, nil
			}
		case "tool_use":
			tb := &toolBlock{index: s.nTools}
			s.nTools++
			if len(cb.Input) > 0 && cb.Input[0] == '{' && !emptyObject(cb.Input) {
				tb.input = cb.Input
			}
			if s.tools == nil {
				s.tools = make(map[int]*toolBlock, 2)
			}
			s.tools[w.Index] = tb
			return s.emit(s.cw.toolStart(tb.index, cb.ID, cb.Name), 1), false, nil
		}
		// thinking, redacted_thinking and server tool blocks have no place in OpenAI's chunks.
		return ev, true, nil

	case "content_block_delta":
		d := w.Delta
		if d == nil {
			return ev, false, malformed("a content_block_delta has no delta")
		}
		switch d.Type {
		case "text_delta":
			if len(d.Text) > 0 && d.Text[0] != '"' {
				return ev, false, malformed("a text delta is not a string")
			}
			if nonEmptyString(d.Text) {
				return s.emit(s.cw.text(d.Text), 1), false, nil
			}
		case "input_json_delta":
			if len(d.PartialJSON) > 0 && d.PartialJSON[0] != '"' {
				return ev, false, malformed("a tool input delta is not a string")
			}
			if tb := s.tools[w.Index]; tb != nil && nonEmptyString(d.PartialJSON) {
				tb.gotDeltas = true
				return s.emit(s.cw.toolArgs(tb.index, d.PartialJSON), 1), false, nil
			}
		}
		return ev, true, nil

	case "content_block_stop":
		// A tool block whose input came whole in its start and not as deltas.
		if tb := s.tools[w.Index]; tb != nil && !tb.gotDeltas && tb.input != nil {
			args, err := argumentsText(tb.input)
			if err != nil {
				return ev, false, malformed("a tool call's input is not a JSON object")
			}
			tb.gotDeltas = true
			return s.emit(s.cw.toolArgs(tb.index, appendJSONString(nil, args)), 1), false, nil
		}
		return ev, true, nil

	case "message_delta":
		s.usage.delta(w.Usage)
		if w.Delta != nil && w.Delta.StopReason != nil && !s.finished {
			s.finished = true
			reason := finishReason(*w.Delta.StopReason)
			ev = s.emit(s.cw.finish(reason), 0)
			ev.FinishReason = reason
			return ev, false, nil
		}
		if w.Usage != nil {
			return shlyuz.StreamEvent{Usage: s.usage.current()}, false, nil
		}
		return ev, true, nil

	case "message_stop":
		return ev, false, io.EOF

	case "error":
		return ev, false, eventError(parseErrorValue(w.Error))
	}
	return ev, true, nil // ping and event types a newer API adds
}

// emit is an event carrying data; tokens is how many content deltas it carries.
func (s *stream) emit(data []byte, tokens int64) shlyuz.StreamEvent {
	s.usage.counted += tokens
	return shlyuz.StreamEvent{Data: data, Usage: s.usage.current(), CompletionTokens: tokens}
}

// nonEmptyString reports whether v is a JSON string literal with content.
func nonEmptyString(v json.RawMessage) bool {
	return len(v) > 2 && v[0] == '"'
}

// emptyObject reports whether v is {} (with any whitespace).
func emptyObject(v json.RawMessage) bool {
	return string(bytes.Join(bytes.Fields(v), nil)) == "{}"
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
