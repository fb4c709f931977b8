// Package salute is the adapter for Sber's SaluteSpeech REST API
// (https://smartspeech.sber.ru/rest/v1): synchronous recognition of short
// audio (POST /speech:recognize with the raw audio and its Content-Type, up
// to 2 MB and a minute; the reply's "result" phrases joined) and synthesis
// (POST /text:synthesize with the text as application/text, the Ogg Opus,
// WAV or PCM audio streamed back as it comes). It authorizes as GigaChat
// does, through sberauth: the authorization key of api_key_env traded at the
// OAuth endpoint (auth_url) for a shared 30-minute token of scope
// SALUTE_SPEECH_PERS (or scope), the Russian Trusted Root CA trusted from
// ca_file. SaluteSpeech reports no usage: the gateway bills what it measured.
// It serves no chat.
package salute

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/sberauth"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
	"github.com/shlyuz/shlyuz/providers/internal/videojob"
)

// Defaults for the zero fields of the upstream's configuration.
const (
	DefaultBaseURL = "https://smartspeech.sber.ru/rest/v1"
	DefaultAuthURL = sberauth.DefaultAuthURL
	DefaultScope   = "SALUTE_SPEECH_PERS"
	// refreshMargin is how long before its expiry a token is replaced.
	refreshMargin = 5 * time.Minute
)

// Provider is one SaluteSpeech upstream. It is safe for concurrent use: its
// connections are pooled and its access token is shared.
type Provider struct {
	videojob.NoChat
	cfg    shlyuz.UpstreamConfig
	base   string
	header http.Header
	client *http.Client
	auth   *sberauth.TokenSource
	now    func() time.Time
}

var (
	_ shlyuz.Provider              = (*Provider)(nil)
	_ shlyuz.SpeechProvider        = (*Provider)(nil)
	_ shlyuz.TranscriptionProvider = (*Provider)(nil)
)

// New makes the adapter for the upstream: cfg.BaseURL (DefaultBaseURL when
// empty) is the REST root, cfg.AuthURL (DefaultAuthURL) the OAuth endpoint,
// cfg.Scope (DefaultScope) the scope asked for, cfg.APIKey the
// authorization key (base64 of client_id:client_secret), cfg.CAFile a PEM or
// DER certificate trusted besides the system roots.
func New(cfg shlyuz.UpstreamConfig) (*Provider, error) {
	cfg, err := service.Config(cfg, DefaultBaseURL, DefaultScope)
	if err != nil {
		return nil, err
	}
	client, h, err := service.Client(cfg)
	if err != nil {
		return nil, err
	}
	return &Provider{
		NoChat: videojob.NoChat{Name: cfg.Name},
		cfg:    cfg,
		base:   strings.TrimRight(cfg.BaseURL, "/"),
		header: h,
		client: client,
		now:    time.Now,
		auth:   service.Tokens(cfg, client, refreshMargin),
	}, nil
}

// Name is the upstream's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// CloseIdleConnections closes the pooled connections that are not in use.
func (p *Provider) CloseIdleConnections() { p.client.CloseIdleConnections() }

// call is an authorized POST of body, as contentType, to the REST method
// (its path and query after the base URL).
func (p *Provider) call(method, contentType string, body []byte, accept string) *upstream.Call {
	url := p.base + method
	return &upstream.Call{
		Config: &p.cfg,
		Errors: errs,
		Send: func(ctx context.Context) (*http.Response, error) {
			return p.auth.Send(ctx, func() (*http.Request, error) {
				r, err := upstream.NewRequest(ctx, url, p.header, body, accept)
				if err == nil {
					r.Header.Set("Content-Type", contentType)
				}
				return r, err
			})
		},
		Status: func(status int, h http.Header, body []byte) *shlyuz.Error {
			return statusError(p.cfg.Name, status, h, body, p.now())
		},
		JSONError: bodyError,
	}
}
