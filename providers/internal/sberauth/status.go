package sberauth

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Service names a Sber API in the gateway's messages ("GigaChat") and in
// the causes it logs ("gigachat").
type Service struct{ Name, Label string }

// StatusError maps a non-2xx reply of a Sber API, its body read by
// ParseError. A 401 is reached only when a fresh token was refused too, and
// its body is never echoed.
func (s Service) StatusError(upstreamName string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
	_, msg, parsed := ParseError(body)
	msg = upstream.Clip(msg)
	if msg == "" {
		msg = http.StatusText(status)
	}
	var e *shlyuz.Error
	switch {
	case status == http.StatusUnauthorized:
		e = shlyuz.ErrUpstream("%s refused the gateway's credentials (HTTP 401) even with a fresh access token.", s.Name)
	case status == http.StatusForbidden:
		e = shlyuz.ErrUpstream("%s denied the gateway access (HTTP 403); the operator must check the account's scope and models.", s.Name)
	case status == http.StatusPaymentRequired:
		e = shlyuz.ErrUpstream("%s's package is exhausted (HTTP 402 Payment Required); retrying this upstream will not help until its operator tops it up.", s.Name)
	case status == http.StatusTooManyRequests:
		e = shlyuz.ErrRateLimited(upstream.RetryAfter(h, now), "%s is rate limiting requests: %s", s.Name, msg)
		e.UpstreamFault = true
	case status == http.StatusRequestTimeout:
		e = shlyuz.ErrUpstreamTimeout("%s timed out (HTTP 408): %s", s.Name, msg)
	case status == http.StatusNotFound:
		// The model name or the base URL is the operator's: not the client's fault.
		e = shlyuz.ErrUpstream("%s does not know the model or the endpoint (HTTP 404): %s", s.Name, msg).ForModel()
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge ||
		status == http.StatusUnsupportedMediaType || status == http.StatusUnprocessableEntity:
		e = shlyuz.ErrInvalidValue("", "%s rejected the request (HTTP %d): %s", s.Name, status, msg)
		e.Param = nil
	case status >= 500:
		e = shlyuz.ErrUpstream("%s failed (HTTP %d): %s", s.Name, status, msg)
		e.ModelFault = status != http.StatusServiceUnavailable // not a whole-upstream overload
	default:
		e = shlyuz.ErrUpstream("%s answered HTTP %d: %s", s.Name, status, msg)
	}
	e.Cause = fmt.Errorf("%s %s: HTTP %d: %s", s.Label, upstreamName, status, msg)
	if !parsed || status == http.StatusUnauthorized {
		e.Cause = fmt.Errorf("%s %s: HTTP %d (body withheld or not an error object)", s.Label, upstreamName, status)
	}
	return e
}

// Client is the HTTP client and the base header of a Sber upstream: the CA
// file's roots (the Russian Trusted Root CA) trusted besides the system's,
// and the operator's headers.
func (s Service) Client(cfg shlyuz.UpstreamConfig) (*http.Client, http.Header, error) {
	var roots *x509.CertPool
	if cfg.CAFile != "" {
		pool, err := Roots(cfg.CAFile)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: ca_file: %w", s.Label, cfg.Name, err)
		}
		roots = pool
	}
	h := http.Header{}
	h.Set("User-Agent", "shlyuz")
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	return upstream.NewClientWithRoots(roots), h, nil
}

// AuthTimeout bounds one call to the OAuth endpoint (less when the
// upstream's FirstByteTimeout is shorter).
const AuthTimeout = 30 * time.Second

// Tokens is the token source of an upstream of the service: cfg's OAuth
// endpoint, scope and authorization key, called through client; a token
// with less than margin left is replaced.
func (s Service) Tokens(cfg shlyuz.UpstreamConfig, client *http.Client, margin time.Duration) *TokenSource {
	return &TokenSource{
		Upstream: cfg.Name,
		Label:    s.Name,
		Client:   client,
		URL:      cfg.AuthURL,
		Scope:    cfg.Scope,
		Key:      strings.TrimSpace(cfg.APIKey),
		Margin:   margin,
		Timeout:  min(AuthTimeout, cfg.FirstByteTimeout),
		Now:      time.Now,
	}
}

// Errors are an adapter's reasons for giving up a call; a certificate the
// gateway does not trust is a failure of its own.
func (s Service) Errors() *upstream.Errors {
	e := upstream.NewErrors(s.Label)
	e.Label = s.Label
	e.Classify = func(err error) *shlyuz.Error {
		if IsCertError(err) {
			return shlyuz.ErrUpstream("%s's TLS certificate is not trusted by the gateway; %s.", s.Name, CertHint)
		}
		return nil
	}
	return e
}

// Config is cfg with its defaults filled (baseURL, Sber's OAuth endpoint,
// scope), or an error when no authorization key is set.
func (s Service) Config(cfg shlyuz.UpstreamConfig, baseURL, scope string) (shlyuz.UpstreamConfig, error) {
	cfg = cfg.WithDefaults()
	if cfg.BaseURL == "" {
		cfg.BaseURL = baseURL
	}
	if cfg.AuthURL == "" {
		cfg.AuthURL = DefaultAuthURL
	}
	if cfg.Scope == "" {
		cfg.Scope = scope
	}
	if strings.TrimSpace(cfg.APIKey) == "" {
		return cfg, fmt.Errorf("%s %s: no authorization key (set api_key_env to a variable holding it)", s.Label, cfg.Name)
	}
	return cfg, nil
}
