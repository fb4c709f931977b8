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
// with an image part is refused with a 400. The adapter also draws images
// with YandexART (images.go), and transcribes and speaks with SpeechKit
// (stt.go, tts.go).
package yandex

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// DefaultBaseURL is the native API's host, used when the config names none.
const DefaultBaseURL = "https://llm.api.cloud.yandex.net"

// completionPath is the native completion endpoint under the base URL.
const completionPath = "/foundationModels/v1/completion"

// maxReplyBytes bounds a non-streamed reply.
const maxReplyBytes = 64 << 20

// Provider is one Yandex Foundation Models endpoint and folder. It is safe for
// concurrent use; its connections are pooled and kept alive.
type Provider struct {
	cfg  shlyuz.UpstreamConfig
	base string // the API's root: completions, image generation, operations
	// The roots of SpeechKit's recognition and synthesis APIs and of the
	// operations API (speechkit.go).
	stt, tts, ops string
	url           string
	header        http.Header
	client        *http.Client
	now           func() time.Time
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
	stt, tts, ops := speechKitRoots(base)
	return &Provider{
		cfg:    cfg,
		base:   base,
		stt:    stt,
		tts:    tts,
		ops:    ops,
		url:    base + completionPath,
		header: h,
		client: upstream.NewClientWithRoots(nil),
		now:    time.Now,
	}, nil
}

// Name is the upstream's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// CloseIdleConnections closes the pooled connections that are not in use.
func (p *Provider) CloseIdleConnections() { p.client.CloseIdleConnections() }

// call is a call of the completion endpoint with body. Its reply to a
// streamed call is JSON too.
func (p *Provider) call(body []byte) *upstream.Call {
	return p.callWith(upstream.Post(p.client, p.url, p.header, body, ""))
}

// callWith is a call of any Yandex Cloud API (completion, YandexART,
// SpeechKit, operations) that send makes, its failures mapped alike.
func (p *Provider) callWith(send func(context.Context) (*http.Response, error)) *upstream.Call {
	return &upstream.Call{
		Config: &p.cfg,
		Errors: errs,
		Send:   send,
		Status: func(status int, h http.Header, body []byte) *shlyuz.Error {
			return statusError(p.cfg.Name, status, h, body, p.now())
		},
	}
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
	data, err := p.call(body).Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
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
	b, err := p.call(body).Open(ctx)
	if err != nil {
		return nil, err
	}
	return newStream(p.cfg.Name, b, newChunker(req, p.now().Unix()), p.now), nil
}
