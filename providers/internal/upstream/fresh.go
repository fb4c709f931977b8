package upstream

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// IdleConnTimeout is how long a kept-alive connection to an upstream may wait
// unused in a pool: well under the keep-alive time-outs of upstream servers
// and proxies (60 s and more), so the pool rarely holds a connection the
// upstream has already dropped.
const IdleConnTimeout = 30 * time.Second

// FreshRetry is the adapters' RoundTripper: a Transport that, when a request
// sent on a connection it did not dial itself (a kept-alive one, or one
// dialled for another request) finds that the upstream had closed it (a
// reset, or the end of the connection before any byte of a reply), drops
// every idle connection of the pool and sends the request once more on a
// connection dialled for it alone. Nothing of the first attempt reached the
// upstream's application, so the retry is safe for a POST; and a restarted
// upstream leaves stale connections behind that must not count as its
// failures. The retry cannot meet another stale connection: it goes through
// a clone of the transport that keeps no connection alive, so it dials.
type FreshRetry struct {
	*http.Transport
	dial *http.Transport // Transport's clone without keep-alives: every request dials
}

// NewFreshRetry is a FreshRetry on tr.
func NewFreshRetry(tr *http.Transport) *FreshRetry {
	dial := tr.Clone()
	dial.DisableKeepAlives = true
	return &FreshRetry{Transport: tr, dial: dial}
}

// RoundTrip sends r, again on a connection of its own when the one it got was stale.
func (t *FreshRetry) RoundTrip(r *http.Request) (*http.Response, error) {
	// A connection not dialled for this request is one that may have gone
	// stale: a kept-alive one, or one dialled for another request (before
	// the upstream restarted, say) and handed to this one.
	var reused, dialled atomic.Bool
	ctx := httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{
		ConnectStart: func(string, string) { dialled.Store(true) },
		GotConn:      func(i httptrace.GotConnInfo) { reused.Store(i.Reused) },
	})
	resp, err := t.Transport.RoundTrip(r.WithContext(ctx))
	if err == nil || !(reused.Load() || !dialled.Load()) || r.Context().Err() != nil || !Stale(err) ||
		(r.Body != nil && r.Body != http.NoBody && r.GetBody == nil) {
		return resp, err
	}
	t.Transport.CloseIdleConnections()
	again := r.Clone(r.Context())
	if r.GetBody != nil {
		if again.Body, err = r.GetBody(); err != nil {
			return nil, err
		}
	}
	return t.dial.RoundTrip(again)
}

// Stale reports whether err is what a request meets on a connection the
// upstream closed while it sat in the pool: the connection's end (EOF) or a
// reset before any byte of a reply, a broken pipe while writing, or
// net/http's own word for a pooled connection it found closed as the
// request went out on it (which it retries by itself only for idempotent
// requests, never for a POST).
func Stale(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) ||
		err != nil && strings.HasSuffix(err.Error(), errServerClosedIdle)
}

// errServerClosedIdle is the text of net/http's unexported error for a
// request sent on a pooled connection the server had closed
// (TestStaleKnowsServerClosedIdle makes net/http say it).
const errServerClosedIdle = "http: server closed idle connection"
