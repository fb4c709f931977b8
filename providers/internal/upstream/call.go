package upstream

import (
	"context"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/shlyuz/shlyuz"
)

// MaxErrorBytes bounds what is read of an error body.
const MaxErrorBytes = 64 << 10

// ReadErrorBody reads an error body, up to MaxErrorBytes; what cannot be
// read is left out.
func ReadErrorBody(r io.Reader) []byte {
	data, _ := io.ReadAll(io.LimitReader(r, MaxErrorBytes))
	return data
}

// Call is one call an adapter makes to its upstream.
type Call struct {
	// Config is the upstream's configuration, its defaults filled: its name
	// goes into the causes of errors, its timeouts bound the call.
	Config *shlyuz.UpstreamConfig
	Errors *Errors
	// Send sends the request under ctx. An error that is a *shlyuz.Error
	// passes as it is; the rest are transport failures.
	Send func(ctx context.Context) (*http.Response, error)
	// Status maps a non-2xx reply, its body read up to MaxErrorBytes.
	Status func(status int, h http.Header, body []byte) *shlyuz.Error
	// JSONError, when set, reads the reply to a streamed call that came as
	// application/json instead of a stream: the error it says, or nil when it
	// says none (the reply is then malformed). When JSONError is nil, such a
	// reply is read as the stream.
	JSONError func(body []byte) *shlyuz.Error
}

// Reply makes a non-streamed call, bounded by the upstream's Timeout, and
// returns the body of its 2xx reply, which may not be longer than maxBytes.
func (c *Call) Reply(ctx context.Context, maxBytes int64) ([]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, c.Config.Timeout)
	defer cancel()
	resp, err := c.Send(cctx)
	if err != nil {
		return nil, c.Errors.Call(c.Config.Name, ctx, nil, err, false)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, c.Status(resp.StatusCode, resp.Header, ReadErrorBody(resp.Body)).FromStatus(resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, c.Errors.Call(c.Config.Name, ctx, nil, err, true)
	}
	if int64(len(data)) > maxBytes {
		return nil, shlyuz.ErrUpstream("The upstream's reply is larger than %d bytes.", maxBytes)
	}
	return data, nil
}

// Open makes a streamed call. It returns once the upstream's response headers
// arrived, which FirstByteTimeout bounds, with the body of its 2xx reply;
// IdleTimeout then bounds each wait for the upstream as the body is read.
func (c *Call) Open(ctx context.Context) (*Body, error) {
	sctx, cancel := context.WithCancelCause(ctx)
	late := c.Errors.FirstByte
	firstByte := time.AfterFunc(c.Config.FirstByteTimeout, func() { cancel(late) })
	resp, err := c.Send(sctx)
	firstByte.Stop()
	if err != nil {
		cause := context.Cause(sctx)
		cancel(nil)
		return nil, c.Errors.Call(c.Config.Name, ctx, cause, err, false)
	}
	if resp.StatusCode/100 != 2 {
		data := ReadErrorBody(resp.Body)
		resp.Body.Close()
		cancel(nil)
		return nil, c.Status(resp.StatusCode, resp.Header, data).FromStatus(resp.StatusCode)
	}
	if c.JSONError != nil {
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
			// Not a stream: an error body, or a server that would not stream.
			data := ReadErrorBody(resp.Body)
			resp.Body.Close()
			cancel(nil)
			if e := c.JSONError(data); e != nil {
				return nil, e
			}
			return nil, Malformed("the upstream answered JSON instead of an event stream")
		}
	}
	return newBody(c.Config.Name, ctx, sctx, cancel, resp.Body, c.Config.IdleTimeout, c.Errors), nil
}

// Post is a Call.Send that posts body to url through client, with a copy of
// header and, unless accept is empty, that Accept header.
func Post(client *http.Client, url string, header http.Header, body []byte, accept string) func(ctx context.Context) (*http.Response, error) {
	return PostParts(client, url, header, [][]byte{body}, accept)
}

// PostParts is Post of the body its parts make one after the other, sent as
// they are, not joined into one buffer first (a large prompt where the
// client's body holds it, with the adapter's fields around it). The parts
// must not change until the call's response is closed.
func PostParts(client *http.Client, url string, header http.Header, parts [][]byte, accept string) func(ctx context.Context) (*http.Response, error) {
	return func(ctx context.Context) (*http.Response, error) {
		body := parts[0]
		if len(parts) > 1 {
			body = nil
		}
		r, err := NewRequest(ctx, url, header, body, accept)
		if err != nil {
			return nil, shlyuz.ErrInternal(err)
		}
		if len(parts) > 1 {
			for _, p := range parts {
				r.ContentLength += int64(len(p))
			}
			r.GetBody = func() (io.ReadCloser, error) {
				b := net.Buffers(slices.Clone(parts)) // reading consumes it
				return io.NopCloser(&b), nil
			}
			r.Body, _ = r.GetBody()
		}
		return client.Do(r)
	}
}
