// Package videojob is the HTTP plumbing the video adapters share: one JSON
// call of an asynchronous-job API with its failures mapped to shlyuz errors
// (a 4xx other than 408/429 is permanent: the job fails at no cost), and the
// download of a finished file.
package videojob

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Client calls one upstream.
type Client struct {
	Name   string // the upstream's configured name, for messages
	HTTP   *http.Client
	Header http.Header // sent on every call (credentials, User-Agent)
	Base   string      // the upstream's URL: a fetch off its host goes guarded, without Header
	Now    func() time.Time
}

// JSON sends body (nil: none) and decodes a 2xx JSON reply into out.
func (c *Client) JSON(ctx context.Context, method, url string, h http.Header, body any, out any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, shlyuz.ErrInternal(err)
		}
		rd = bytes.NewReader(b)
	}
	resp, err := c.Do(ctx, method, url, h, rd)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, shlyuz.ErrUpstream("The upstream %q's reply broke off: %v", c.Name, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, upstream.Malformed("the reply is not the expected JSON")
	}
	return resp.Header, nil
}

// Do sends one request and returns a 2xx response; another status is an error.
func (c *Client) Do(ctx context.Context, method, url string, h http.Header, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, shlyuz.ErrUpstreamTimeout("The upstream %q did not answer in time.", c.Name)
		}
		e := shlyuz.ErrUpstream("The upstream %q cannot be reached.", c.Name)
		e.Cause, e.UpstreamFault = err, true
		return nil, e
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, c.StatusError(resp.StatusCode, resp.Header, upstream.ReadErrorBody(resp.Body))
	}
	return resp, nil
}

// StatusError maps a non-2xx reply: 401/403 and 5xx are the upstream's
// fault, 429 is a rate limit, another 4xx is a permanent refusal.
func (c *Client) StatusError(status int, h http.Header, body []byte) *shlyuz.Error {
	var e *shlyuz.Error
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e = shlyuz.ErrUpstream("The upstream %q refused the gateway's credentials or link (HTTP %d).", c.Name, status)
	case status == http.StatusTooManyRequests:
		e = shlyuz.ErrRateLimited(upstream.RetryAfter(h, c.Now()), "The upstream %q is rate limiting requests.", c.Name)
	case status == http.StatusRequestTimeout || status >= 500:
		e = shlyuz.ErrUpstream("The upstream %q failed (HTTP %d): %s", c.Name, status, upstream.Clip(string(body)))
	default:
		e = shlyuz.ErrInvalidValue("", "The upstream %q rejected the request (HTTP %d): %s", c.Name, status, upstream.Clip(string(body)))
		e.Param = nil
	}
	e.UpstreamFault = status != http.StatusBadRequest && status != http.StatusUnprocessableEntity
	e.Cause = fmt.Errorf("upstream %s: HTTP %d", c.Name, status)
	return e
}

// Fetch opens a finished file at url (following redirects).
func (c *Client) Fetch(ctx context.Context, url string, h http.Header) (io.ReadCloser, error) {
	if hc, same := upstream.ForURL(c.HTTP, c.Base, url); !same {
		guarded := *c
		guarded.HTTP, guarded.Header = hc, http.Header{"User-Agent": {"shlyuz"}}
		c = &guarded
	}
	resp, err := c.Do(ctx, http.MethodGet, url, h, nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// Failed is a job the upstream failed: the error's code is content_filter for
// moderation, upstream_error otherwise.
func Failed(filtered bool, format string, args ...any) shlyuz.VideoStatus {
	code := "upstream_error"
	if filtered {
		code = "content_filter"
	}
	return shlyuz.VideoStatus{State: shlyuz.VideoFailed, Error: &shlyuz.VideoError{Code: code, Message: upstream.Clip(fmt.Sprintf(format, args...))}}
}

// AspectRatio is 16:9 for a landscape size ("1280x720"), 9:16 for a
// portrait one, 1:1 for a square, "" for none.
func AspectRatio(size string) string {
	w, h, ok := strings.Cut(size, "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return ""
	case wi > hi:
		return "16:9"
	case hi > wi:
		return "9:16"
	}
	return "1:1"
}

// Open is the client of a video-only upstream and its base URL (def when the
// configuration names none): pooled connections trusting the CA file, a
// User-Agent, auth (when not empty) and the configured headers on every call.
func Open(cfg shlyuz.UpstreamConfig, def, auth string) (string, *Client, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = def
	}
	hc, err := upstream.NewClient(cfg.CAFile)
	if err != nil {
		return "", nil, fmt.Errorf("upstream %q: %w", cfg.Name, err)
	}
	h := http.Header{"User-Agent": {"shlyuz"}}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	return base, &Client{Name: cfg.Name, HTTP: hc, Header: h, Base: base, Now: time.Now}, nil
}
