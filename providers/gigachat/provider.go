// Package gigachat is the adapter for Sber's GigaChat chat API v1
// (https://gigachat.devices.sberbank.ru/api/v1). It owns the OAuth
// client-credentials flow (an authorization key traded at the ngw endpoint
// for a 30-minute Bearer token, cached, shared by concurrent requests,
// refreshed ahead of its expiry and once more on a 401), the TLS trust of
// the Russian Trusted Root CA (an operator-supplied PEM added to the system
// roots, never verification turned off), the translation of OpenAI
// chat-completions requests into GigaChat's (tools → functions, tool results
// → role "function", images uploaded to the files API and passed as
// attachments), and the translation back: replies and SSE streams in OpenAI's
// shapes with invented, stable tool-call ids, usage for billing, and upstream
// failures mapped to shlyuz errors.
package gigachat

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/openai"
)

// Defaults for the zero fields of the upstream's configuration.
const (
	DefaultBaseURL = "https://gigachat.devices.sberbank.ru/api/v1"
	DefaultAuthURL = "https://ngw.devices.sberbank.ru:9443/api/v2/oauth"
	DefaultScope   = "GIGACHAT_API_PERS"
	// DefaultRefreshMargin is how long before its expiry a token is replaced.
	DefaultRefreshMargin = 5 * time.Minute
)

// Limits on what is read from the upstream.
const (
	maxReplyBytes = 64 << 20
	maxErrorBytes = 64 << 10
	// authTimeout bounds one call to the OAuth endpoint.
	authTimeout = 30 * time.Second
)

// Options tune the adapter beyond what shlyuz.UpstreamConfig says.
type Options struct {
	// RefreshMargin: a token with less than this left is replaced before it
	// is used. 0: DefaultRefreshMargin. A margin longer than the tokens'
	// lifetime makes every request fetch a new token.
	RefreshMargin time.Duration
}

// Provider is one GigaChat upstream. It is safe for concurrent use: its
// connections are pooled and its access token is shared.
type Provider struct {
	cfg      shlyuz.UpstreamConfig
	chatURL  string
	filesURL string
	header   http.Header
	client   *http.Client
	auth     *tokenSource
	now      func() time.Time
}

var _ shlyuz.Provider = (*Provider)(nil)

// New makes the adapter for the upstream: cfg.BaseURL (DefaultBaseURL when
// empty) is the API root the chat and files endpoints hang from, cfg.AuthURL
// (DefaultAuthURL) the OAuth endpoint, cfg.Scope (DefaultScope) the scope
// asked for, cfg.APIKey the authorization key (base64 of
// client_id:client_secret), cfg.CAFile a PEM (or DER) certificate file
// trusted besides the system roots. Zero timeouts take the defaults of
// shlyuz.UpstreamConfig.WithDefaults.
func New(cfg shlyuz.UpstreamConfig) (*Provider, error) {
	return NewWithOptions(cfg, Options{})
}

// NewWithOptions is New with options.
func NewWithOptions(cfg shlyuz.UpstreamConfig, opts Options) (*Provider, error) {
	cfg = cfg.WithDefaults()
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.AuthURL == "" {
		cfg.AuthURL = DefaultAuthURL
	}
	if cfg.Scope == "" {
		cfg.Scope = DefaultScope
	}
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, fmt.Errorf("gigachat %s: no authorization key (set api_key_env to a variable holding it)", cfg.Name)
	}
	if opts.RefreshMargin <= 0 {
		opts.RefreshMargin = DefaultRefreshMargin
	}
	tr := openai.NewTransport()
	if cfg.CAFile != "" {
		pool, err := rootsWith(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("gigachat %s: ca_file: %w", cfg.Name, err)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	client := &http.Client{Transport: tr}

	h := http.Header{}
	h.Set("User-Agent", "shlyuz")
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	p := &Provider{
		cfg:      cfg,
		chatURL:  base + "/chat/completions",
		filesURL: base + "/files",
		header:   h,
		client:   client,
		now:      time.Now,
	}
	p.auth = &tokenSource{
		upstream: cfg.Name,
		client:   client,
		url:      cfg.AuthURL,
		scope:    cfg.Scope,
		key:      strings.TrimSpace(cfg.APIKey),
		margin:   opts.RefreshMargin,
		timeout:  min(authTimeout, cfg.FirstByteTimeout),
		now:      time.Now,
	}
	return p, nil
}

// rootsWith is the system roots plus the certificates of a PEM or DER file.
func rootsWith(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if bytes.Contains(data, []byte("-----BEGIN")) {
		n := 0
		for rest := data; ; {
			var block *pem.Block
			block, rest = pem.Decode(rest)
			if block == nil {
				break
			}
			if block.Type != "CERTIFICATE" {
				continue
			}
			c, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			pool.AddCert(c)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no CERTIFICATE block", path)
		}
		return pool, nil
	}
	c, err := x509.ParseCertificate(data) // a DER .cer, as the CA is also published
	if err != nil {
		return nil, fmt.Errorf("%s: neither PEM nor a DER certificate: %w", path, err)
	}
	pool.AddCert(c)
	return pool, nil
}

// Name is the upstream's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// CloseIdleConnections closes the pooled connections that are not in use.
func (p *Provider) CloseIdleConnections() { p.client.CloseIdleConnections() }

// send makes an authorized call: it takes the shared token, and when the
// upstream answers 401 it renews the token once and repeats the call once.
// A second 401 comes back to the caller as is.
func (p *Provider) send(ctx context.Context, build func() (*http.Request, error)) (*http.Response, error) {
	tok, err := p.auth.token(ctx)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		req, err := build()
		if err != nil {
			return nil, shlyuz.ErrInternal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := p.client.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusUnauthorized || attempt > 0 {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBytes))
		resp.Body.Close()
		if tok, err = p.auth.renew(ctx, tok); err != nil {
			return nil, err
		}
	}
}

// newChatRequest builds one POST of the chat endpoint.
func (p *Provider) newChatRequest(ctx context.Context, body []byte, stream bool) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.chatURL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header = p.header.Clone()
	r.Header.Set("Content-Type", "application/json")
	if stream {
		r.Header.Set("Accept", "text/event-stream")
	} else {
		r.Header.Set("Accept", "application/json")
	}
	return r, nil
}

// Chat makes a non-streamed call, bounded by the upstream's Timeout (image
// uploads included).
func (p *Provider) Chat(ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	cctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	body, err := buildBody(cctx, req, false, p.upload)
	if err != nil {
		return nil, p.callError(ctx, nil, err, false)
	}
	resp, err := p.send(cctx, func() (*http.Request, error) { return p.newChatRequest(cctx, body, false) })
	if err != nil {
		return nil, p.callError(ctx, nil, err, false)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		return nil, statusError(p.cfg.Name, resp.StatusCode, resp.Header, data, p.now())
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return nil, p.callError(ctx, nil, err, true)
	}
	if len(data) > maxReplyBytes {
		return nil, shlyuz.ErrUpstream("The upstream's reply is larger than %d bytes.", maxReplyBytes)
	}
	return decodeReply(data, req.GenerationID)
}

// ChatStream opens a streamed call. It returns once the upstream's response
// headers arrived, which FirstByteTimeout bounds (from the moment the body is
// ready, image uploads done); IdleTimeout then bounds each gap between chunks.
func (p *Provider) ChatStream(ctx context.Context, req *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	sctx, cancel := context.WithCancelCause(ctx)
	uctx, ucancel := context.WithTimeout(sctx, p.cfg.Timeout)
	body, err := buildBody(uctx, req, true, p.upload)
	ucancel()
	if err != nil {
		cancel(nil)
		return nil, p.callError(ctx, nil, err, false)
	}
	firstByte := time.AfterFunc(p.cfg.FirstByteTimeout, func() { cancel(errFirstByte) })
	resp, err := p.send(sctx, func() (*http.Request, error) { return p.newChatRequest(sctx, body, true) })
	firstByte.Stop()
	if err != nil {
		cause := context.Cause(sctx)
		cancel(nil)
		return nil, p.callError(ctx, cause, err, false)
	}
	if resp.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		resp.Body.Close()
		cancel(nil)
		return nil, statusError(p.cfg.Name, resp.StatusCode, resp.Header, data, p.now())
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		// Not a stream: an error, or a server that would not stream.
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		resp.Body.Close()
		cancel(nil)
		if e := bodyError(data); e != nil {
			return nil, e
		}
		return nil, malformed("the upstream answered JSON instead of an event stream")
	}
	return newStream(p.cfg.Name, ctx, sctx, cancel, resp.Body, p.cfg.IdleTimeout,
		newTranslator(req.GenerationID, req.Model, p.now)), nil
}

// callError maps what went wrong on the way to a reply: *shlyuz.Error values
// (translation, OAuth) pass as they are, the caller's cancellation comes back
// untouched, and the rest are transport failures.
func (p *Provider) callError(parent context.Context, cause, err error, broken bool) error {
	var e *shlyuz.Error
	if errors.As(err, &e) {
		return e
	}
	return transportError(p.cfg.Name, parent, cause, err, broken)
}
