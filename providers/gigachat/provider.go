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
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Defaults for the zero fields of the upstream's configuration.
const (
	DefaultBaseURL = "https://gigachat.devices.sberbank.ru/api/v1"
	DefaultAuthURL = "https://ngw.devices.sberbank.ru:9443/api/v2/oauth"
	DefaultScope   = "GIGACHAT_API_PERS"
	// DefaultRefreshMargin is how long before its expiry a token is replaced.
	DefaultRefreshMargin = 5 * time.Minute
)

// Limits on what is read from the upstream and how long it is waited for.
const (
	maxReplyBytes = 64 << 20
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
	var roots *x509.CertPool
	if cfg.CAFile != "" {
		pool, err := rootsWith(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("gigachat %s: ca_file: %w", cfg.Name, err)
		}
		roots = pool
	}
	client := upstream.NewClientWithRoots(roots)

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
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, upstream.MaxErrorBytes))
		resp.Body.Close()
		if tok, err = p.auth.renew(ctx, tok); err != nil {
			return nil, err
		}
	}
}

// chat is a call of the chat endpoint; body builds the request's body
// under the call's context.
func (p *Provider) chat(body func(ctx context.Context) ([]byte, error), stream bool) *upstream.Call {
	return &upstream.Call{
		Config: &p.cfg,
		Errors: errs,
		Send: func(ctx context.Context) (*http.Response, error) {
			b, err := body(ctx)
			if err != nil {
				return nil, err
			}
			return p.send(ctx, func() (*http.Request, error) {
				r, err := upstream.NewRequest(ctx, p.chatURL, p.header, b, upstream.Accept(stream))
				if err == nil {
					r.Header.Set("Content-Type", "application/json")
				}
				return r, err
			})
		},
		Status: func(status int, h http.Header, body []byte) *shlyuz.Error {
			return statusError(p.cfg.Name, status, h, body, p.now())
		},
		// A JSON reply in place of a stream: an error, or a server that would not stream.
		JSONError: bodyError,
	}
}

// Chat makes a non-streamed call, bounded by the upstream's Timeout (image
// uploads included).
func (p *Provider) Chat(ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	data, err := p.chat(func(ctx context.Context) ([]byte, error) {
		return buildBody(ctx, req, false, p.upload)
	}, false).Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	return decodeReply(data, req.GenerationID, func(id string) ([]byte, error) { return p.download(ctx, id) })
}

// ChatStream opens a streamed call. It returns once the upstream's response
// headers arrived, which FirstByteTimeout bounds (from the moment the body is
// ready, image uploads done); IdleTimeout then bounds each gap between chunks.
func (p *Provider) ChatStream(ctx context.Context, req *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	uctx, ucancel := context.WithTimeout(ctx, p.cfg.Timeout)
	body, err := buildBody(uctx, req, true, p.upload)
	ucancel()
	if err != nil {
		return nil, errs.Call(p.cfg.Name, ctx, nil, err, false)
	}
	b, err := p.chat(func(context.Context) ([]byte, error) { return body, nil }, true).Open(ctx)
	if err != nil {
		return nil, err
	}
	return newStream(b, newTranslator(req.GenerationID, req.Model, p.now)), nil
}
