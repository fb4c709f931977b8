// Package gigachat is the adapter for Sber's GigaChat chat API v1
// (https://gigachat.devices.sberbank.ru/api/v1). It authorizes through
// sberauth, shared with SaluteSpeech (an authorization key traded at the ngw
// endpoint for a 30-minute Bearer token, cached, shared by concurrent
// requests, refreshed ahead of its expiry and once more on a 401; the TLS
// trust of the Russian Trusted Root CA, an operator-supplied PEM added to
// the system roots, never verification turned off). It owns the
// translation of OpenAI chat-completions requests into GigaChat's (tools →
// functions, tool results → role "function", images uploaded to the files
// API and passed as attachments), and the translation back: replies and SSE
// streams in OpenAI's shapes with invented, stable tool-call ids, usage for
// billing, and upstream failures mapped to shlyuz errors.
package gigachat

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/sberauth"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Defaults for the zero fields of the upstream's configuration.
const (
	DefaultBaseURL = "https://gigachat.devices.sberbank.ru/api/v1"
	DefaultAuthURL = sberauth.DefaultAuthURL
	DefaultScope   = "GIGACHAT_API_PERS"
	// DefaultRefreshMargin is how long before its expiry a token is replaced.
	DefaultRefreshMargin = 5 * time.Minute
)

// maxReplyBytes bounds what is read of a reply.
const maxReplyBytes = 64 << 20

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
	embedURL string
	header   http.Header
	client   *http.Client
	auth     *sberauth.TokenSource
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
	cfg, err := service.Config(cfg, DefaultBaseURL, DefaultScope)
	if err != nil {
		return nil, err
	}
	if opts.RefreshMargin <= 0 {
		opts.RefreshMargin = DefaultRefreshMargin
	}
	client, h, err := service.Client(cfg)
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	return &Provider{
		cfg:      cfg,
		chatURL:  base + "/chat/completions",
		filesURL: base + "/files",
		embedURL: base + "/embeddings",
		header:   h,
		client:   client,
		auth:     service.Tokens(cfg, client, opts.RefreshMargin),
		now:      time.Now,
	}, nil
}

// Name is the upstream's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// CloseIdleConnections closes the pooled connections that are not in use.
func (p *Provider) CloseIdleConnections() { p.client.CloseIdleConnections() }

// send makes an authorized call (see sberauth.TokenSource.Send).
func (p *Provider) send(ctx context.Context, build func() (*http.Request, error)) (*http.Response, error) {
	return p.auth.Send(ctx, build)
}

// chat is a call of the chat endpoint; body builds the request's body
// under the call's context.
func (p *Provider) chat(body func(ctx context.Context) ([]byte, error), stream bool) *upstream.Call {
	return p.post(p.chatURL, body, stream)
}

// post is an authorized JSON call of url (chat, embeddings).
func (p *Provider) post(url string, body func(ctx context.Context) ([]byte, error), stream bool) *upstream.Call {
	return &upstream.Call{
		Config: &p.cfg,
		Errors: errs,
		Send: func(ctx context.Context) (*http.Response, error) {
			b, err := body(ctx)
			if err != nil {
				return nil, err
			}
			return p.send(ctx, func() (*http.Request, error) {
				r, err := upstream.NewRequest(ctx, url, p.header, b, upstream.Accept(stream))
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
