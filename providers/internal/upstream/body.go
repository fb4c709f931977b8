package upstream

import (
	"bufio"
	"context"
	"io"
	"sync"
	"time"
)

const (
	readerSize = 8 << 10  // stream chunks are a few hundred bytes; longer lines spill over
	drainLimit = 64 << 10 // read after the end so the connection goes back to the pool
)

var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerSize) }}

// Body is the body of a streamed reply, as Call.Open returns it. It is read
// through R on one goroutine; Close may be called from any goroutine at any
// time and unblocks a read waiting on the upstream.
type Body struct {
	// R reads the body through a pooled buffer; Release returns it and sets R to nil.
	R *bufio.Reader

	upstream string
	parent   context.Context // the caller's context
	ctx      context.Context // the call's context, cancelled with a cause
	cancel   context.CancelCauseFunc
	body     io.ReadCloser
	closed   sync.Once
	errs     *Errors

	idleTimeout time.Duration
	idle        *time.Timer
}

func newBody(upstream string, parent, ctx context.Context, cancel context.CancelCauseFunc,
	body io.ReadCloser, idleTimeout time.Duration, errs *Errors) *Body {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(body)
	b := &Body{
		R:           br,
		upstream:    upstream,
		parent:      parent,
		ctx:         ctx,
		cancel:      cancel,
		body:        body,
		errs:        errs,
		idleTimeout: idleTimeout,
	}
	b.idle = time.AfterFunc(time.Hour, func() { cancel(errs.Idle) })
	b.idle.Stop()
	return b
}

// Watch starts the idle timeout over, or starts it: the call is given up
// when the upstream sends nothing for IdleTimeout.
func (b *Body) Watch() { b.idle.Reset(b.idleTimeout) }

// Unwatch stops the idle timeout.
func (b *Body) Unwatch() { b.idle.Stop() }

// Cancelled reports whether the call's context was cancelled, for whatever
// reason: an io.EOF read after that is no clean end.
func (b *Body) Cancelled() bool { return context.Cause(b.ctx) != nil }

// Close gives the stream up and releases the connection. It is idempotent
// and unblocks a read waiting on the upstream, which then fails with the
// adapter's Closed error.
func (b *Body) Close() error {
	b.cancel(b.errs.Closed)
	b.closeBody()
	return nil
}

func (b *Body) closeBody() {
	b.closed.Do(func() { b.body.Close() })
}

// Drain reads what is left of the body (the chunked terminator), up to a
// limit, so that the connection can be reused.
func (b *Body) Drain() {
	_, _ = io.CopyN(io.Discard, b.R, drainLimit)
}

// Release ends the stream on the reading goroutine once it is over: it stops
// the idle timeout, closes the body, cancels the call and returns R to the
// pool.
func (b *Body) Release() {
	b.idle.Stop()
	b.closeBody()
	b.cancel(context.Canceled)
	b.R.Reset(nil)
	readerPool.Put(b.R)
	b.R = nil
}

// ReadError maps a failed read of the body: the Closed error after Close,
// the caller's context error after its cancellation, a transport error
// otherwise (a timeout when the idle timeout gave the call up).
func (b *Body) ReadError(err error) error {
	cause := context.Cause(b.ctx)
	if cause == b.errs.Closed {
		return b.errs.Closed
	}
	return b.errs.Transport(b.upstream, b.parent, cause, err, true)
}
