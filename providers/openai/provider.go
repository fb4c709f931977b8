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
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// maxReplyBytes bounds a non-streamed reply (images come base64).
const maxReplyBytes = 256 << 20

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
// shlyuz.UpstreamConfig.WithDefaults. It trusts the system's roots only: use
// Open for a configuration with a CA file.
func New(cfg shlyuz.UpstreamConfig) *Provider { return newProvider(cfg, nil) }

// Open is New for a configuration that may name a CA file (cfg.CAFile): the
// upstream's certificate may then chain to it as well as to the system's
// roots. It fails when the file cannot be read or holds no certificate.
func Open(cfg shlyuz.UpstreamConfig) (*Provider, error) {
	if cfg.CAFile == "" {
		return New(cfg), nil
	}
	roots, err := upstream.Roots(cfg.CAFile)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w", cfg.Name, err)
	}
	return newProvider(cfg, roots), nil
}

func newProvider(cfg shlyuz.UpstreamConfig, roots *x509.CertPool) *Provider {
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
	var tlsConfig *tls.Config
	if roots != nil {
		tlsConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	p := &Provider{
		cfg:    cfg,
		url:    strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions",
		header: h,
		client: upstream.NewClientWithRoots(roots),
		now:    time.Now,
	}
	fh := h.Clone()
	fh.Set("Accept", upstream.Accept(false)) // as the net/http path sets it for a non-streamed call
	p.fast = newFastChat(p.url, fh, cfg.Timeout, tlsConfig)
	return p
}

// NewTransport is the HTTP transport the adapter uses: a large pool of
// kept-alive connections per host, a bounded dial and TLS handshake, and no
// overall timeout (a stream may last many minutes; the adapter bounds the
// phases of a call itself).
func NewTransport() *http.Transport {
	return upstream.NewTransport()
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

// call is a call of the chat completions endpoint with body.
func (p *Provider) call(body []byte, stream bool) *upstream.Call {
	return p.callTo(p.url, p.header, body, upstream.Accept(stream))
}

// callTo is a POST of body to url with header (and that Accept unless empty),
// its errors mapped as the chat endpoint's are.
func (p *Provider) callTo(url string, header http.Header, body []byte, accept string) *upstream.Call {
	return p.chatCall(upstream.Post(p.client, url, header, body, accept))
}

// chatCall is a call that send makes, its errors mapped as the chat endpoint's are.
func (p *Provider) chatCall(send func(context.Context) (*http.Response, error)) *upstream.Call {
	return &upstream.Call{
		Config: &p.cfg,
		Errors: errs,
		Send:   send,
		Status: func(status int, h http.Header, body []byte) *shlyuz.Error {
			return statusError(p.cfg.Name, status, h, body, p.now())
		},
		JSONError: jsonError,
	}
}

// jsonError reads a JSON reply in place of a stream: some servers answer an
// error (or refuse to stream) this way.
func jsonError(body []byte) *shlyuz.Error {
	if we := parseErrorBody(body); we.Parsed {
		return upstreamStreamError(errorValue(body))
	}
	return nil
}

// Chat makes a non-streamed call, bounded by the upstream's Timeout. With a
// context that has a deadline (the gateway's calls) it goes through fasthttp
// and, once sent, runs until the reply or the deadline: see fast.go.
func (p *Provider) Chat(ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	if p.fast != nil {
		if d, ok := ctx.Deadline(); ok {
			if limit := time.Now().Add(p.cfg.Timeout); limit.Before(d) {
				d = limit
			}
			// fasthttp is done with the body when chatFast returns.
			buf := sendBuffer()
			s, scratch, ok := spliceBody(req, *buf)
			if ok {
				defer releaseSendBuffer(buf, scratch)
				defer s.Undo()
				return p.chatFast(ctx, s.Body, d)
			}
			body, _ := appendBody(scratch, req, false, "")
			defer releaseSendBuffer(buf, body)
			return p.chatFast(ctx, body, d)
		}
	}
	body, _ := buildBody(req, false)
	data, err := p.call(body, false).Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	return decodeReply(data)
}

// wireReply is the part of a chat.completion the adapter reads.
type wireReply struct {
	Created           int64           `json:"created"`
	Choices           json.RawMessage `json:"choices"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Usage             *wireUsage      `json:"usage"`
	Error             json.RawMessage `json:"error"`
}

func decodeReply(data []byte) (*shlyuz.ChatResponse, error) {
	var w wireReply
	if !readReply(data, &w) {
		slow := new(wireReply) // encoding/json decides; a target of its own keeps w on the stack
		if err := json.Unmarshal(data, slow); err != nil {
			e := upstream.Malformed("the reply is not valid JSON")
			e.Cause = err
			return nil, e
		}
		w = *slow
	}
	if len(w.Error) > 0 && !isNull(w.Error) {
		return nil, upstreamStreamError(w.Error)
	}
	if len(w.Choices) == 0 || w.Choices[0] != '[' {
		return nil, upstream.Malformed("the reply has no choices")
	}
	_, finish, _, err := scanChoices(w.Choices)
	if err != nil {
		return nil, upstream.Malformed("the reply's choices are not valid")
	}
	r := &shlyuz.ChatResponse{
		Created:           w.Created,
		Choices:           w.Choices,
		FinishReason:      finish,
		SystemFingerprint: w.SystemFingerprint,
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
	var c *upstream.Call
	var clientUsage bool
	if parts, usage, ok := streamParts(req); ok {
		c, clientUsage = p.chatCall(upstream.PostParts(p.client, p.url, p.header, parts, upstream.Accept(true))), usage
	} else {
		var body []byte
		body, clientUsage = buildBody(req, true)
		c = p.call(body, true)
	}
	b, err := c.Open(ctx)
	if err != nil {
		return nil, err
	}
	return newStream(b, newRewriter(req.GenerationID, req.Model, clientUsage)), nil
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
