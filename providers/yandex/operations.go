package yandex

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Yandex Cloud's long-running operations (YandexART's images, SpeechKit's
// asynchronous recognition), polled within the client's request.

// opPoll is the first pause between polls of an operation; it doubles up to opPollMax.
const (
	opPoll    = 250 * time.Millisecond
	opPollMax = 2 * time.Second
)

// operation is a Yandex Cloud Operation; Response is what the finished one holds.
type operation struct {
	ID    string `json:"id"`
	Done  bool   `json:"done"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Response json.RawMessage `json:"response"`
}

// await polls op at {ops}/operations/{id} until it is done, as long as ctx
// lasts. A finished operation's error is returned as the upstream's failure
// of what (an image generation, a recognition).
func (p *Provider) await(ctx context.Context, ops, what string, op *operation) error {
	for pause := opPoll; !op.Done; pause = min(2*pause, opPollMax) {
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return errs.Call(p.cfg.Name, ctx, nil, ctx.Err(), true)
		case <-t.C:
		}
		id := op.ID
		if err := p.callJSON(ctx, ops+"/operations/"+url.PathEscape(id), nil, op); err != nil {
			return err
		}
		if op.ID == "" {
			op.ID = id
		}
	}
	if op.Error != nil {
		return shlyuz.ErrUpstream("The upstream failed the %s (code %d): %s", what, op.Error.Code, upstream.Clip(op.Error.Message))
	}
	return nil
}

// callJSON sends one JSON request (a GET when body is nil) and decodes its
// JSON reply into out.
func (p *Provider) callJSON(ctx context.Context, u string, body []byte, out any) error {
	data, err := p.send(ctx, u, p.header, body, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return upstream.Malformed("the reply is not the expected JSON: " + strconv.Quote(upstream.Clip(string(data))))
	}
	return nil
}

// send sends one request with a copy of header (a GET when body is nil,
// without its Content-Type) and returns its 2xx reply's body, bounded by the
// upstream's Timeout; the reply's header goes to *hdr when hdr is not nil.
func (p *Provider) send(ctx context.Context, u string, header http.Header, body []byte, hdr *http.Header) ([]byte, error) {
	post := upstream.Post(p.client, u, header, body, "")
	return p.callWith(func(ctx context.Context) (*http.Response, error) {
		var resp *http.Response
		var err error
		if body == nil {
			var r *http.Request
			if r, err = http.NewRequestWithContext(ctx, http.MethodGet, u, nil); err != nil {
				return nil, shlyuz.ErrInternal(err)
			}
			r.Header = header.Clone()
			r.Header.Del("Content-Type")
			resp, err = p.client.Do(r)
		} else {
			resp, err = post(ctx)
		}
		if resp != nil && hdr != nil {
			*hdr = resp.Header
		}
		return resp, err
	}).Reply(ctx, maxReplyBytes)
}
