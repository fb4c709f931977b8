package gigachat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz"
)

const (
	readerSize = 8 << 10  // chunks are a few hundred bytes; longer lines spill into stream.long
	maxLine    = 16 << 20 // one SSE line is never longer than this
	drainLimit = 64 << 10 // read after [DONE] so the connection goes back to the pool
)

var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerSize) }}

// stream reads GigaChat's SSE stream. Next is called from one goroutine;
// Close may be called from any goroutine at any time.
type stream struct {
	upstream string
	parent   context.Context // the caller's context
	ctx      context.Context // the request's context, cancelled with a cause
	cancel   context.CancelCauseFunc
	body     io.ReadCloser
	closed   sync.Once

	br          *bufio.Reader
	tr          *translator
	idleTimeout time.Duration
	idle        *time.Timer

	data      []byte // the data of the event being read
	long      []byte // a line longer than br's buffer
	err       error  // sticky: once set, Next returns it
	sawFinish bool
	sawUsage  bool
}

func newStream(upstream string, parent, ctx context.Context, cancel context.CancelCauseFunc,
	body io.ReadCloser, idleTimeout time.Duration, tr *translator) *stream {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(body)
	s := &stream{
		upstream:    upstream,
		parent:      parent,
		ctx:         ctx,
		cancel:      cancel,
		body:        body,
		br:          br,
		tr:          tr,
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
		if len(line) == 0 { // the end of an event
			if len(s.data) == 0 {
				continue
			}
			ev, skip, err := s.dispatch()
			if skip && err == nil {
				continue
			}
			return ev, err
		}
		if line[0] == ':' { // a comment: the upstream is alive
			continue
		}
		if line[0] == '{' && len(s.data) == 0 { // a bare JSON line (an error body)
			s.data = append(s.data, line...)
			ev, skip, err := s.dispatch()
			if skip && err == nil {
				continue
			}
			return ev, err
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
		// event:, id:, retry: and unknown fields carry nothing for chat v1.
	}
}

// atEOF handles the upstream closing the stream without [DONE].
func (s *stream) atEOF() (shlyuz.StreamEvent, error) {
	if len(s.data) > 0 {
		ev, skip, err := s.dispatch()
		if err != nil || !skip {
			return ev, err
		}
	}
	if s.sawFinish {
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
	if bytes.Equal(payload, []byte("[DONE]")) {
		if !s.sawFinish && !s.sawUsage {
			return ev, false, shlyuz.ErrUpstream("The upstream ended the stream before it finished.")
		}
		return ev, false, io.EOF
	}
	res := s.tr.translate(payload)
	if res.err != nil {
		return ev, false, res.err
	}
	if res.usage != nil {
		s.sawUsage = true
	}
	if res.finish != "" {
		s.sawFinish = true
	}
	if res.data == nil && res.usage == nil {
		return ev, true, nil
	}
	return shlyuz.StreamEvent{
		Data:             res.data,
		Usage:            res.usage,
		FinishReason:     res.finish,
		CompletionTokens: res.tokens,
	}, false, nil
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

// translator turns GigaChat's chunks into OpenAI chat.completion.chunk
// objects carrying our generation id and model id. Usage is taken out: the
// gateway writes the final usage chunk itself.
type translator struct {
	genID   string
	model   string
	now     func() time.Time
	started map[int]bool // choices whose role was sent
	called  map[int]bool // choices that called a function
}

func newTranslator(genID, model string, now func() time.Time) *translator {
	return &translator{genID: genID, model: model, now: now, started: map[int]bool{}, called: map[int]bool{}}
}

type gcChunk struct {
	Choices []gcChoice `json:"choices"`
	Created int64      `json:"created"`
	Usage   *gcUsage   `json:"usage"`
}

type oaChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []oaChunkChoice `json:"choices"`
}

type oaChunkChoice struct {
	Index        int     `json:"index"`
	Delta        oaDelta `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type oaDelta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []oaOutToolCall `json:"tool_calls,omitempty"`
}

// chunkResult is what one upstream chunk says.
type chunkResult struct {
	data   []byte // the OpenAI chunk, nil when there is nothing to send
	usage  *shlyuz.Usage
	finish string
	tokens int64 // estimated completion tokens of the chunk
	err    *shlyuz.Error
}

// translate reads one chunk (the payload of an SSE data event).
func (t *translator) translate(payload []byte) (res chunkResult) {
	if payload[0] != '{' {
		res.err = malformed("a stream chunk is not a JSON object")
		return res
	}
	var c gcChunk
	if err := json.Unmarshal(payload, &c); err != nil {
		res.err = malformed("a stream chunk is not valid JSON")
		res.err.Cause = err
		return res
	}
	if c.Choices == nil && c.Usage == nil {
		if e := bodyError(payload); e != nil {
			res.err = e
		} else {
			res.err = malformed("a stream chunk has no choices")
		}
		return res
	}
	if c.Usage != nil {
		u := c.Usage.usage()
		res.usage = &u
	}
	out := oaChunk{ID: t.genID, Object: "chat.completion.chunk", Created: c.Created, Model: t.model}
	if out.Created == 0 {
		out.Created = t.now().Unix()
	}
	for _, ch := range c.Choices {
		d := ch.Delta
		var od oaDelta
		if !t.started[ch.Index] {
			t.started[ch.Index] = true
			od.Role = "assistant"
		}
		if d.Content != "" {
			content := d.Content
			od.Content = &content
			res.tokens += estimateTokens(d.Content)
		}
		if d.ReasoningContent != "" {
			od.ReasoningContent = d.ReasoningContent
			res.tokens += estimateTokens(d.ReasoningContent)
		}
		if fc := d.FunctionCall; fc != nil && fc.Name != "" {
			t.called[ch.Index] = true
			tc := toolCall(t.genID, ch.Index, fc, d.FunctionsStateID)
			zero := 0
			tc.Index = &zero
			od.ToolCalls = []oaOutToolCall{tc}
			res.tokens += estimateTokens(fc.Name) + estimateTokens(tc.Function.Arguments)
		}
		if od.Role != "" && od.Content == nil && od.ToolCalls == nil {
			empty := ""
			od.Content = &empty
		}
		var finish *string
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			f := finishReason(*ch.FinishReason)
			if f == "stop" && t.called[ch.Index] {
				f = "tool_calls"
			}
			finish = &f
			if res.finish == "" {
				res.finish = f
			}
		}
		if od.Role == "" && od.Content == nil && od.ReasoningContent == "" && od.ToolCalls == nil && finish == nil {
			continue // an empty delta: nothing to say
		}
		out.Choices = append(out.Choices, oaChunkChoice{Index: ch.Index, Delta: od, FinishReason: finish})
	}
	if len(out.Choices) == 0 {
		return res
	}
	b, err := marshal(&out)
	if err != nil {
		res.err = shlyuz.ErrInternal(err)
		return res
	}
	res.data = b
	return res
}

// estimateTokens guesses the tokens of a piece of text (GigaChat streams
// phrases, not tokens): a quarter of its characters, at least one. It bills
// a stream cut before the upstream reported its usage.
func estimateTokens(s string) int64 {
	return int64(max(1, utf8.RuneCountInString(s)/4))
}
