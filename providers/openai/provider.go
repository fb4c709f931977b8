// Package openai is the adapter for every upstream that speaks OpenAI's chat
// completions protocol: OpenAI itself, DeepSeek, Mistral, xAI, Groq,
// OpenRouter, vLLM, Ollama and the like. It owns the translation of a gateway
// request into the upstream body (the client's fields passed through byte for
// byte, with the model, token ceiling and streaming options the gateway
// decided), the reading of replies and SSE streams (chunks re-stamped with our
// generation id and model id, usage picked out for billing), and the mapping
// of upstream failures to shlyuz errors.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
)

// Limits on what is read from an upstream.
const (
	maxReplyBytes = 256 << 20 // a non-streamed reply (images come base64)
	maxErrorBytes = 64 << 10  // an error body
)

// Provider is one OpenAI-compatible upstream endpoint. It is safe for
// concurrent use; its connections are pooled and kept alive.
type Provider struct {
	cfg    shlyuz.UpstreamConfig
	url    string
	header http.Header
	client *http.Client
	fast   *fastChat // non-streamed calls with a deadline; nil: all on client
	now    func() time.Time
}

var _ shlyuz.Provider = (*Provider)(nil)

// New makes the adapter for the upstream; zero timeouts take the defaults of
// shlyuz.UpstreamConfig.WithDefaults.
func New(cfg shlyuz.UpstreamConfig) *Provider {
	cfg = cfg.WithDefaults()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "shlyuz")
	if cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	p := &Provider{
		cfg:    cfg,
		url:    strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions",
		header: h,
		client: &http.Client{Transport: NewTransport()},
		now:    time.Now,
	}
	fh := h.Clone()
	fh.Set("Accept", "application/json") // as newRequest for a non-streamed call
	p.fast = newFastChat(p.url, fh, cfg.Timeout, nil)
	return p
}

// NewTransport is the HTTP transport the adapter uses: a large pool of
// kept-alive connections per host, a bounded dial and TLS handshake, and no
// overall timeout (a stream may last many minutes; the adapter bounds the
// phases of a call itself).
func NewTransport() *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   10 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          0, // no global cap
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ReadBufferSize:        16 << 10,
		WriteBufferSize:       16 << 10,
	}
}

// Name is the upstream's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// CloseIdleConnections closes the pooled connections that are not in use.
func (p *Provider) CloseIdleConnections() {
	p.client.CloseIdleConnections()
	if p.fast != nil {
		p.fast.client.CloseIdleConnections()
	}
}

func (p *Provider) newRequest(ctx context.Context, body []byte, stream bool) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header = p.header.Clone()
	if stream {
		r.Header.Set("Accept", "text/event-stream")
	} else {
		r.Header.Set("Accept", "application/json")
	}
	return r, nil
}

// Chat makes a non-streamed call, bounded by the upstream's Timeout. With a
// context that has a deadline (the gateway's calls) it goes through fasthttp
// and, once sent, runs until the reply or the deadline: see fast.go.
func (p *Provider) Chat(ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	body, _ := buildBody(req, false)
	if p.fast != nil {
		if d, ok := ctx.Deadline(); ok {
			if limit := time.Now().Add(p.cfg.Timeout); limit.Before(d) {
				d = limit
			}
			return p.chatFast(ctx, body, d)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	hreq, err := p.newRequest(cctx, body, false)
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	resp, err := p.client.Do(hreq)
	if err != nil {
		return nil, transportError(p.cfg.Name, ctx, nil, err, false)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		return nil, statusError(p.cfg.Name, resp.StatusCode, resp.Header, data, p.now())
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return nil, transportError(p.cfg.Name, ctx, nil, err, true)
	}
	if len(data) > maxReplyBytes {
		return nil, shlyuz.ErrUpstream("The upstream's reply is larger than %d bytes.", maxReplyBytes)
	}
	return decodeReply(data)
}

// wireReply is the part of a chat.completion the adapter reads.
type wireReply struct {
	Created           int64           `json:"created"`
	Choices           json.RawMessage `json:"choices"`
	SystemFingerprint *string         `json:"system_fingerprint"`
	Usage             *wireUsage      `json:"usage"`
	Error             json.RawMessage `json:"error"`
}

func decodeReply(data []byte) (*shlyuz.ChatResponse, error) {
	var w wireReply
	if err := json.Unmarshal(data, &w); err != nil {
		e := malformed("the reply is not valid JSON")
		e.Cause = err
		return nil, e
	}
	if len(w.Error) > 0 && !isNull(w.Error) {
		return nil, upstreamStreamError(w.Error)
	}
	if len(w.Choices) == 0 || w.Choices[0] != '[' {
		return nil, malformed("the reply has no choices")
	}
	_, finish, _, err := scanChoices(w.Choices)
	if err != nil {
		return nil, malformed("the reply's choices are not valid")
	}
	r := &shlyuz.ChatResponse{
		Created:      w.Created,
		Choices:      w.Choices,
		FinishReason: finish,
	}
	if w.SystemFingerprint != nil {
		r.SystemFingerprint = *w.SystemFingerprint
	}
	if w.Usage != nil {
		r.Usage = w.Usage.usage()
	}
	return r, nil
}

// ChatStream opens a streamed call. It returns once the upstream's response
// headers arrived, which FirstByteTimeout bounds; IdleTimeout then bounds each
// gap between chunks.
func (p *Provider) ChatStream(ctx context.Context, req *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	body, clientUsage := buildBody(req, true)
	sctx, cancel := context.WithCancelCause(ctx)
	hreq, err := p.newRequest(sctx, body, true)
	if err != nil {
		cancel(nil)
		return nil, shlyuz.ErrInternal(err)
	}
	firstByte := time.AfterFunc(p.cfg.FirstByteTimeout, func() { cancel(errFirstByte) })
	resp, err := p.client.Do(hreq)
	firstByte.Stop()
	if err != nil {
		cause := context.Cause(sctx)
		cancel(nil)
		return nil, transportError(p.cfg.Name, ctx, cause, err, false)
	}
	if resp.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		resp.Body.Close()
		cancel(nil)
		return nil, statusError(p.cfg.Name, resp.StatusCode, resp.Header, data, p.now())
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		// Not a stream: some servers answer an error (or refuse to stream) this way.
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		resp.Body.Close()
		cancel(nil)
		if we := parseErrorBody(data); we.Parsed {
			return nil, upstreamStreamError(errorValue(data))
		}
		return nil, malformed("the upstream answered JSON instead of an event stream")
	}
	return newStream(p.cfg.Name, ctx, sctx, cancel, resp.Body, p.cfg.IdleTimeout,
		newRewriter(req.GenerationID, req.Model, clientUsage)), nil
}

// errorValue is the value of the top-level "error" key of a body, or the body itself.
func errorValue(body []byte) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) == nil {
		if e, ok := top["error"]; ok && !isNull(e) {
			return e
		}
	}
	return body
}
