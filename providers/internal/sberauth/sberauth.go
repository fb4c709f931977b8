// Package sberauth is Sber's OAuth client-credentials flow, shared by the
// GigaChat and SaluteSpeech adapters: an authorization key (base64 of
// client_id:client_secret, sent as Basic) traded with a scope and a fresh
// RqUID at the ngw endpoint for a 30-minute Bearer token; one token shared by
// every request, replaced ahead of its expiry by one refresh at a time, and
// once more when the API answers 401; and the TLS trust of the Russian
// Trusted Root CA (a PEM or DER file added to the system roots).
package sberauth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// DefaultAuthURL is Sber's OAuth endpoint (GigaChat and SaluteSpeech alike).
const DefaultAuthURL = "https://ngw.devices.sberbank.ru:9443/api/v2/oauth"

// tokenLifetime is the tokens' lifetime, assumed when a token reply carries
// no expiry.
const tokenLifetime = 30 * time.Minute

// RefreshBackoff is how long a failed early refresh is not tried again while
// the token in hand is still good.
const RefreshBackoff = 5 * time.Second

// TokenSource keeps an upstream's access token: one token shared by every
// request, replaced when less than Margin is left, by one refresh at a time
// that the callers needing it wait for together. Set its fields before its
// first use.
type TokenSource struct {
	Upstream string // the upstream's configured name, for error causes
	Label    string // the service's name in messages: "GigaChat", "SaluteSpeech"
	Client   *http.Client
	URL      string
	Scope    string
	Key      string // the authorization key, sent as Basic; never logged
	Margin   time.Duration
	Timeout  time.Duration // bounds one call to the OAuth endpoint
	Now      func() time.Time
	// OnJoin, when set (tests), is called when a caller starts waiting for a
	// refresh another caller began.
	OnJoin func()

	mu      sync.Mutex
	tok     string
	exp     time.Time
	retryAt time.Time // after a failed refresh: no early refresh before this
	flight  *refresh  // the refresh in progress, or nil
}

// refresh is one call to the OAuth endpoint, which any number of callers wait for.
type refresh struct {
	done chan struct{}
	tok  string
	err  error
}

// Set installs a token that expires at exp, as if it had been fetched (tests).
func (ts *TokenSource) Set(tok string, exp time.Time) {
	ts.mu.Lock()
	ts.tok, ts.exp = tok, exp
	ts.mu.Unlock()
}

// Token is a token with more than the margin left, refreshed first if needed.
func (ts *TokenSource) Token(ctx context.Context) (string, error) {
	ts.mu.Lock()
	now := ts.Now()
	if ts.tok != "" && (now.Add(ts.Margin).Before(ts.exp) || now.Before(ts.retryAt) && now.Before(ts.exp)) {
		tok := ts.tok
		ts.mu.Unlock()
		return tok, nil
	}
	return ts.refreshLocked(ctx)
}

// Renew replaces a token the upstream refused with a 401, unless another
// caller already replaced it.
func (ts *TokenSource) Renew(ctx context.Context, refused string) (string, error) {
	ts.mu.Lock()
	if ts.tok == refused {
		ts.tok, ts.exp = "", time.Time{}
	} else if ts.tok != "" && ts.Now().Before(ts.exp) {
		tok := ts.tok
		ts.mu.Unlock()
		return tok, nil
	}
	return ts.refreshLocked(ctx)
}

// Send makes an authorized call through the source's client: it takes the
// shared token, and when the upstream answers 401 it renews the token once
// and repeats the call once (build makes a fresh request each time). A
// second 401 comes back to the caller as is.
func (ts *TokenSource) Send(ctx context.Context, build func() (*http.Request, error)) (*http.Response, error) {
	tok, err := ts.Token(ctx)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		req, err := build()
		if err != nil {
			return nil, shlyuz.ErrInternal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := ts.Client.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusUnauthorized || attempt > 0 {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, upstream.MaxErrorBytes))
		resp.Body.Close()
		if tok, err = ts.Renew(ctx, tok); err != nil {
			return nil, err
		}
	}
}

// refreshLocked waits for a refresh, starting one unless one is in
// progress; it is called with ts.mu held and releases it. The refresh runs
// on its own, so that a caller that gives up does not fail the others. When
// it fails, a token that has not expired yet is still used.
func (ts *TokenSource) refreshLocked(ctx context.Context) (string, error) {
	f := ts.flight
	joined := f != nil
	if f == nil {
		f = &refresh{done: make(chan struct{})}
		ts.flight = f
		go ts.run(f)
	}
	old, oldExp := ts.tok, ts.exp
	onJoin := ts.OnJoin
	ts.mu.Unlock()
	if joined && onJoin != nil {
		onJoin()
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if f.err != nil {
		if old != "" && ts.Now().Before(oldExp) {
			return old, nil
		}
		return "", f.err
	}
	return f.tok, nil
}

func (ts *TokenSource) run(f *refresh) {
	ctx, cancel := context.WithTimeout(context.Background(), ts.Timeout)
	defer cancel()
	tok, exp, err := ts.fetch(ctx)
	ts.mu.Lock()
	if err == nil {
		ts.tok, ts.exp, ts.retryAt = tok, exp, time.Time{}
	} else {
		ts.retryAt = ts.Now().Add(RefreshBackoff)
	}
	ts.flight = nil
	f.tok, f.err = tok, err
	ts.mu.Unlock()
	close(f.done)
}

// tokenReply is the OAuth endpoint's answer; the older contour says tok/exp.
type tokenReply struct {
	AccessToken string `json:"access_token"`
	ExpiresAt   int64  `json:"expires_at"`
	Tok         string `json:"tok"`
	Exp         int64  `json:"exp"`
}

// fetch trades the authorization key for an access token.
func (ts *TokenSource) fetch(ctx context.Context) (string, time.Time, error) {
	body := "scope=" + url.QueryEscape(ts.Scope)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(body))
	if err != nil {
		return "", time.Time{}, shlyuz.ErrInternal(err)
	}
	req.Header.Set("Authorization", "Basic "+ts.Key)
	req.Header.Set("RqUID", NewRqUID())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "shlyuz")
	resp, err := ts.Client.Do(req)
	if err != nil {
		return "", time.Time{}, ts.transportError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data := upstream.ReadErrorBody(resp.Body)
		return "", time.Time{}, ts.statusError(resp.StatusCode, resp.Header, data)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, upstream.MaxErrorBytes))
	if err != nil {
		return "", time.Time{}, ts.transportError(err)
	}
	var tr tokenReply
	if err := json.Unmarshal(data, &tr); err != nil {
		return "", time.Time{}, shlyuz.ErrUpstream("%s's OAuth endpoint answered malformed data.", ts.Label)
	}
	tok, at := tr.AccessToken, tr.ExpiresAt
	if tok == "" {
		tok, at = tr.Tok, tr.Exp
	}
	if tok == "" {
		return "", time.Time{}, shlyuz.ErrUpstream("%s's OAuth endpoint answered without an access token.", ts.Label)
	}
	return tok, Expiry(at, ts.Now()), nil
}

// Expiry reads expires_at: Unix milliseconds (research §4.1). A value too
// small to be milliseconds of this century is taken as seconds; none means
// the usual 30 minutes from now.
func Expiry(at int64, now time.Time) time.Time {
	switch {
	case at <= 0:
		return now.Add(tokenLifetime)
	case at < 1e11:
		return time.Unix(at, 0)
	default:
		return time.UnixMilli(at)
	}
}

// NewRqUID is a fresh random UUID (version 4) for the RqUID header.
func NewRqUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// statusError maps a refusal of the OAuth endpoint. Its message is never
// shown: only its numeric code, which cannot carry a secret.
func (ts *TokenSource) statusError(status int, h http.Header, body []byte) *shlyuz.Error {
	var eb struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	_ = json.Unmarshal(body, &eb)
	code := ""
	if c := string(eb.Code); c != "" && c != "null" && isDigits(c) {
		code = ", code " + c
	}
	var e *shlyuz.Error
	switch {
	case status == http.StatusTooManyRequests:
		e = shlyuz.ErrRateLimited(upstream.RetryAfter(h, ts.Now()), "%s's OAuth endpoint is rate limiting the gateway's token requests.", ts.Label)
		e.UpstreamFault = true
	case status >= 500:
		e = shlyuz.ErrUpstream("%s's OAuth endpoint failed (HTTP %d).", ts.Label, status)
	default:
		e = shlyuz.ErrUpstream("%s refused the gateway's %s credentials: the OAuth endpoint answered HTTP %d%s. The operator must check the authorization key and scope.", ts.Label, ts.Label, status, code)
	}
	e.Cause = fmt.Errorf("%s %s: oauth: HTTP %d: code=%s: %s", strings.ToLower(ts.Label), ts.Upstream, status, eb.Code, upstream.Clip(eb.Message))
	return e
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0 && len(s) < 10
}

// transportError maps a failure to reach the OAuth endpoint.
func (ts *TokenSource) transportError(err error) *shlyuz.Error {
	var e *shlyuz.Error
	switch {
	case isDeadline(err), upstream.IsTimeout(err):
		e = shlyuz.ErrUpstreamTimeout("%s's OAuth endpoint did not answer in time.", ts.Label)
	case IsCertError(err):
		e = shlyuz.ErrUpstream("The TLS certificate of %s's OAuth endpoint is not trusted by the gateway; %s.", ts.Label, CertHint)
	default:
		e = shlyuz.ErrUpstream("%s's OAuth endpoint is unreachable.", ts.Label)
	}
	e.Cause = fmt.Errorf("%s %s: oauth: %w", strings.ToLower(ts.Label), ts.Upstream, err)
	return e
}
