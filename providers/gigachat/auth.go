package gigachat

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

// tokenLifetime is GigaChat's token lifetime, assumed when a token reply
// carries no expiry.
const tokenLifetime = 30 * time.Minute

// refreshBackoff is how long a failed early refresh is not tried again while
// the token in hand is still good.
const refreshBackoff = 5 * time.Second

// tokenSource keeps the upstream's access token: one token shared by every
// request, replaced when less than margin is left, by one refresh at a time
// that the callers needing it wait for together.
type tokenSource struct {
	upstream string
	client   *http.Client
	url      string
	scope    string
	key      string // the authorization key, sent as Basic; never logged
	margin   time.Duration
	timeout  time.Duration
	now      func() time.Time
	// onJoin, when set (tests), is called when a caller starts waiting for a
	// refresh another caller began.
	onJoin func()

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

// token is a token with more than the margin left, refreshed first if needed.
func (ts *tokenSource) token(ctx context.Context) (string, error) {
	ts.mu.Lock()
	now := ts.now()
	if ts.tok != "" && (now.Add(ts.margin).Before(ts.exp) || now.Before(ts.retryAt) && now.Before(ts.exp)) {
		tok := ts.tok
		ts.mu.Unlock()
		return tok, nil
	}
	return ts.refreshLocked(ctx)
}

// renew replaces a token the upstream refused with a 401, unless another
// caller already replaced it.
func (ts *tokenSource) renew(ctx context.Context, refused string) (string, error) {
	ts.mu.Lock()
	if ts.tok == refused {
		ts.tok, ts.exp = "", time.Time{}
	} else if ts.tok != "" && ts.now().Before(ts.exp) {
		tok := ts.tok
		ts.mu.Unlock()
		return tok, nil
	}
	return ts.refreshLocked(ctx)
}

// refreshLocked waits for a refresh, starting one unless one is in
// progress; it is called with ts.mu held and releases it. The refresh runs
// on its own, so that a caller that gives up does not fail the others. When
// it fails, a token that has not expired yet is still used.
func (ts *tokenSource) refreshLocked(ctx context.Context) (string, error) {
	f := ts.flight
	joined := f != nil
	if f == nil {
		f = &refresh{done: make(chan struct{})}
		ts.flight = f
		go ts.run(f)
	}
	old, oldExp := ts.tok, ts.exp
	onJoin := ts.onJoin
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
		if old != "" && ts.now().Before(oldExp) {
			return old, nil
		}
		return "", f.err
	}
	return f.tok, nil
}

func (ts *tokenSource) run(f *refresh) {
	ctx, cancel := context.WithTimeout(context.Background(), ts.timeout)
	defer cancel()
	tok, exp, err := ts.fetch(ctx)
	ts.mu.Lock()
	if err == nil {
		ts.tok, ts.exp, ts.retryAt = tok, exp, time.Time{}
	} else {
		ts.retryAt = ts.now().Add(refreshBackoff)
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
func (ts *tokenSource) fetch(ctx context.Context) (string, time.Time, error) {
	body := "scope=" + url.QueryEscape(ts.scope)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.url, strings.NewReader(body))
	if err != nil {
		return "", time.Time{}, shlyuz.ErrInternal(err)
	}
	req.Header.Set("Authorization", "Basic "+ts.key)
	req.Header.Set("RqUID", newRqUID())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "shlyuz")
	resp, err := ts.client.Do(req)
	if err != nil {
		return "", time.Time{}, authTransportError(ts.upstream, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data := upstream.ReadErrorBody(resp.Body)
		return "", time.Time{}, authStatusError(ts.upstream, resp.StatusCode, resp.Header, data, ts.now())
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, upstream.MaxErrorBytes))
	if err != nil {
		return "", time.Time{}, authTransportError(ts.upstream, err)
	}
	var tr tokenReply
	if err := json.Unmarshal(data, &tr); err != nil {
		return "", time.Time{}, shlyuz.ErrUpstream("GigaChat's OAuth endpoint answered malformed data.")
	}
	tok, at := tr.AccessToken, tr.ExpiresAt
	if tok == "" {
		tok, at = tr.Tok, tr.Exp
	}
	if tok == "" {
		return "", time.Time{}, shlyuz.ErrUpstream("GigaChat's OAuth endpoint answered without an access token.")
	}
	return tok, expiry(at, ts.now()), nil
}

// expiry reads expires_at: Unix milliseconds (research §4.1). A value too
// small to be milliseconds of this century is taken as seconds; none means
// GigaChat's usual 30 minutes from now.
func expiry(at int64, now time.Time) time.Time {
	switch {
	case at <= 0:
		return now.Add(tokenLifetime)
	case at < 1e11:
		return time.Unix(at, 0)
	default:
		return time.UnixMilli(at)
	}
}

// newRqUID is a fresh random UUID (version 4) for the RqUID header.
func newRqUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// authStatusError maps a refusal of the OAuth endpoint. Its message is
// never shown: only its numeric code, which cannot carry a secret.
func authStatusError(name string, status int, h http.Header, body []byte, now time.Time) *shlyuz.Error {
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
		e = shlyuz.ErrRateLimited(upstream.RetryAfter(h, now), "GigaChat's OAuth endpoint is rate limiting the gateway's token requests.")
		e.UpstreamFault = true
	case status >= 500:
		e = shlyuz.ErrUpstream("GigaChat's OAuth endpoint failed (HTTP %d).", status)
	default:
		e = shlyuz.ErrUpstream("GigaChat refused the gateway's GigaChat credentials: the OAuth endpoint answered HTTP %d%s. The operator must check the authorization key and scope.", status, code)
	}
	e.Cause = fmt.Errorf("gigachat %s: oauth: HTTP %d: code=%s: %s", name, status, eb.Code, upstream.Clip(eb.Message))
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
