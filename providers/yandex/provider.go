// Package yandex is the adapter for YandexGPT, Yandex AI Studio's Foundation
// Models, over their native completion API (POST
// {base}/foundationModels/v1/completion). It owns the translation of a
// gateway request (OpenAI's chat-completions body) into the native one —
// messages with "text", tool calls as toolCallList/toolResultList, the model
// as a gpt://<folder>/<model>/<version> URI, maxTokens as a string — the
// reading of native replies and of native streams (newline-delimited JSON
// objects, each carrying the whole text so far, which the adapter turns into
// OpenAI chunks holding only the new text), and the mapping of the native
// errors to shlyuz errors. The native text models take no images: a request
// with an image part is refused with a 400.
package yandex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/openai"
)

// DefaultBaseURL is the native API's host, used when the config names none.
const DefaultBaseURL = "https://llm.api.cloud.yandex.net"

// completionPath is the native completion endpoint under the base URL.
const completionPath = "/foundationModels/v1/completion"

// Limits on what is read from an upstream.
const (
	maxReplyBytes = 64 << 20 // a non-streamed reply
	maxErrorBytes = 64 << 10 // an error body
)

// Provider is one Yandex Foundation Models endpoint and folder. It is safe for
// concurrent use; its connections are pooled and kept alive.
type Provider struct {
	cfg    shlyuz.UpstreamConfig
	url    string
	header http.Header
	client *http.Client
	now    func() time.Time
}

var _ shlyuz.Provider = (*Provider)(nil)

// New makes the adapter for the upstream. cfg.FolderID is required (it goes
// in x-folder-id and in the model URI) and so is cfg.APIKey: an API key sent
// as "Authorization: Api-Key <key>" (cfg.AuthScheme "Api-Key", the default)
// or an IAM token sent as "Authorization: Bearer <token>" (cfg.AuthScheme
// "Bearer"). cfg.BaseURL defaults to DefaultBaseURL. Zero timeouts take the
// defaults of shlyuz.UpstreamConfig.WithDefaults.
func New(cfg shlyuz.UpstreamConfig) (*Provider, error) {
	cfg = cfg.WithDefaults()
	if strings.TrimSpace(cfg.FolderID) == "" {
		return nil, fmt.Errorf("yandex upstream %q: folder_id is required", cfg.Name)
	}
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("yandex upstream %q: no API key or IAM token (set api_key_env)", cfg.Name)
	}
	var scheme string
	switch strings.ToLower(cfg.AuthScheme) {
	case "", "api-key", "apikey":
		scheme = "Api-Key "
	case "bearer":
		scheme = "Bearer "
	default:
		return nil, fmt.Errorf("yandex upstream %q: auth_scheme %q is not supported (Api-Key or Bearer)", cfg.Name, cfg.AuthScheme)
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	// Accept a base URL that already names the API's prefix.
	base = strings.TrimSuffix(base, completionPath)
	base = strings.TrimSuffix(base, strings.TrimSuffix(completionPath, "/completion"))

	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "shlyuz")
	h.Set("Authorization", scheme+cfg.APIKey)
	h.Set("X-Folder-Id", cfg.FolderID)
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	return &Provider{
		cfg:    cfg,
		url:    base + completionPath,
		header: h,
		client: &http.Client{Transport: openai.NewTransport()},
		now:    time.Now,
	}, nil
}

// Name is the upstream's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// CloseIdleConnections closes the pooled connections that are not in use.
func (p *Provider) CloseIdleConnections() { p.client.CloseIdleConnections() }

func (p *Provider) newRequest(ctx context.Context, body []byte) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header = p.header.Clone()
	return r, nil
}

func (p *Provider) body(req *shlyuz.UpstreamRequest, stream bool) ([]byte, error) {
	if req.UpstreamModel == "" {
		return nil, shlyuz.ErrInternal(errors.New("yandex: the request names no upstream model"))
	}
	return buildBody(req, p.cfg.FolderID, stream)
}

// Chat makes a non-streamed call, bounded by the upstream's Timeout.
func (p *Provider) Chat(ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	body, err := p.body(req, false)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	hreq, err := p.newRequest(cctx, body)
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
	return decodeReply(p.cfg.Name, data, req.GenerationID, p.now())
}

// ChatStream opens a streamed call. It returns once the upstream's response
// headers arrived, which FirstByteTimeout bounds; IdleTimeout then bounds each
// gap between the stream's objects.
func (p *Provider) ChatStream(ctx context.Context, req *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	body, err := p.body(req, true)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancelCause(ctx)
	hreq, err := p.newRequest(sctx, body)
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
	return newStream(p.cfg.Name, ctx, sctx, cancel, resp.Body, p.cfg.IdleTimeout,
		newChunker(req, p.now().Unix()), p.now), nil
}
