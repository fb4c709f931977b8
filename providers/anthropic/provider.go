// Package anthropic is the adapter for Anthropic's Messages API
// (POST {base_url}/v1/messages). It owns the translation of a gateway request,
// which carries the client's OpenAI chat-completions body, into an Anthropic
// request (system and developer messages hoisted into the top-level system,
// consecutive same-role turns merged, images, tools, tool calls and tool
// results turned into content blocks, parameters mapped into Anthropic's
// ranges, unknown fields dropped); the translation of Anthropic's replies and
// named-event SSE streams back into OpenAI chat.completion choices and
// chat.completion.chunk objects stamped with our generation id and model id;
// the usage accounting (cache reads and writes count as prompt tokens); and
// the mapping of Anthropic's failures, before or after the first byte, to
// shlyuz errors.
package anthropic

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/openai"
)

// Defaults of the upstream configuration.
const (
	DefaultBaseURL    = "https://api.anthropic.com"
	DefaultAPIVersion = "2023-06-01"
	// DefaultMaxTokens is sent when neither the gateway nor the client set a
	// ceiling: Anthropic requires max_tokens on every request.
	DefaultMaxTokens = 4096
)

// Limits on what is read from an upstream.
const (
	maxReplyBytes = 64 << 20 // a non-streamed reply
	maxErrorBytes = 64 << 10 // an error body
)

// Provider is one Anthropic Messages API endpoint. It is safe for concurrent
// use; its connections are pooled and kept alive.
type Provider struct {
	cfg    shlyuz.UpstreamConfig
	url    string
	header http.Header
	client *http.Client
	now    func() time.Time
}

var _ shlyuz.Provider = (*Provider)(nil)

// New makes the adapter for the upstream. BaseURL is the API's root
// (https://api.anthropic.com, the default when empty); a BaseURL that already
// ends in /v1 is accepted too. APIVersion defaults to DefaultAPIVersion; zero
// timeouts take the defaults of shlyuz.UpstreamConfig.WithDefaults. CAFile,
// when set, adds its PEM roots to the system's. New fails on a base URL that
// is not an absolute http(s) URL or a CA file that cannot be used.
func New(cfg shlyuz.UpstreamConfig) (*Provider, error) {
	cfg = cfg.WithDefaults()
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("anthropic upstream %s: base_url %q is not an absolute http(s) URL", cfg.Name, cfg.BaseURL)
	}
	endpoint := base + "/v1/messages"
	if strings.HasSuffix(base, "/v1") {
		endpoint = base + "/messages"
	}

	transport := openai.NewTransport()
	if cfg.CAFile != "" {
		pool, err := loadRoots(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("anthropic upstream %s: %w", cfg.Name, err)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}

	version := cfg.APIVersion
	if version == "" {
		version = DefaultAPIVersion
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "shlyuz")
	h.Set("Anthropic-Version", version)
	if cfg.APIKey != "" {
		h.Set("X-Api-Key", cfg.APIKey)
	}
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	return &Provider{
		cfg:    cfg,
		url:    endpoint,
		header: h,
		client: &http.Client{Transport: transport},
		now:    time.Now,
	}, nil
}

// loadRoots is the system's roots plus the PEM certificates of the file.
func loadRoots(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ca_file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("ca_file %s holds no PEM certificate", path)
	}
	return pool, nil
}

// Name is the upstream's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// URL is the Messages endpoint the adapter posts to.
func (p *Provider) URL() string { return p.url }

// CloseIdleConnections closes the pooled connections that are not in use.
func (p *Provider) CloseIdleConnections() { p.client.CloseIdleConnections() }

func (p *Provider) newRequest(ctx context.Context, body []byte, stream bool) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header = p.header.Clone()
	if stream {
		r.Header.Set("Accept", "text/event-stream")
	} else {
		r.Header.Set("Accept", "application/json")
	}
	return r, nil
}

// Chat makes a non-streamed call, bounded by the upstream's Timeout.
func (p *Provider) Chat(ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	body, _, err := buildBody(req, false)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	hreq, err := p.newRequest(cctx, body, false)
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
	r, err := decodeReply(data)
	if err != nil {
		return nil, err
	}
	r.Created = p.now().Unix()
	return r, nil
}

// ChatStream opens a streamed call. It returns once the upstream's response
// headers arrived, which FirstByteTimeout bounds; IdleTimeout then bounds each
// gap between events.
func (p *Provider) ChatStream(ctx context.Context, req *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	body, clientUsage, err := buildBody(req, true)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancelCause(ctx)
	hreq, err := p.newRequest(sctx, body, true)
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
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		// Not a stream: an error body, or a server that ignored "stream".
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		resp.Body.Close()
		cancel(nil)
		if we := parseErrorBody(data); we.Parsed {
			return nil, eventError(we)
		}
		return nil, malformed("the upstream answered JSON instead of an event stream")
	}
	cw := newChunkWriter(req.GenerationID, req.Model, p.now().Unix(), clientUsage)
	return newStream(p.cfg.Name, ctx, sctx, cancel, resp.Body, p.cfg.IdleTimeout, cw), nil
}

// wireReply is the Anthropic Message the adapter reads.
type wireReply struct {
	Type       string          `json:"type"`
	Content    []wireBlock     `json:"content"`
	StopReason *string         `json:"stop_reason"`
	Usage      *wireUsage      `json:"usage"`
	Error      json.RawMessage `json:"error"`
}

// wireBlock is one content block of a reply.
type wireBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// wireUsage is Anthropic's usage object. input_tokens excludes the cached
// prompt: cache writes and reads are counted apart.
type wireUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// prompt is the whole prompt in OpenAI's sense: fresh, cache-written and cache-read tokens.
func (w *wireUsage) prompt() int64 {
	return w.InputTokens + w.CacheCreationInputTokens + w.CacheReadInputTokens
}

func (w *wireUsage) usage() shlyuz.Usage {
	p := w.prompt()
	return shlyuz.Usage{
		PromptTokens:     p,
		CompletionTokens: w.OutputTokens,
		TotalTokens:      p + w.OutputTokens,
		CachedTokens:     w.CacheReadInputTokens,
	}
}

// decodeReply turns an Anthropic Message into a ChatResponse (Created unset).
func decodeReply(data []byte) (*shlyuz.ChatResponse, error) {
	var w wireReply
	if err := json.Unmarshal(data, &w); err != nil {
		e := malformed("the reply is not valid JSON")
		e.Cause = err
		return nil, e
	}
	if w.Type == "error" || (len(w.Error) > 0 && !isNull(w.Error)) {
		return nil, eventError(parseErrorValue(w.Error))
	}
	if w.Type != "message" {
		return nil, malformed("the reply is not a message")
	}
	var (
		text  strings.Builder
		calls []toolCallOut
	)
	for _, b := range w.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			args, err := argumentsText(b.Input)
			if err != nil {
				return nil, malformed("a tool call's input is not a JSON object")
			}
			calls = append(calls, toolCallOut{ID: b.ID, Type: "function", Function: functionOut{Name: b.Name, Arguments: args}})
		}
		// thinking, redacted_thinking and server tool blocks have no place in OpenAI's message.
	}
	stop := ""
	if w.StopReason != nil {
		stop = *w.StopReason
	}
	finish := finishReason(stop)
	msg := messageOut{Role: "assistant", ToolCalls: calls}
	if text.Len() > 0 || len(calls) == 0 {
		s := text.String()
		msg.Content = &s
	}
	choices, err := marshal([]choiceOut{{Index: 0, Message: msg, FinishReason: finish}})
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	r := &shlyuz.ChatResponse{Choices: choices, FinishReason: finish}
	if w.Usage != nil {
		r.Usage = w.Usage.usage()
	}
	return r, nil
}

// The OpenAI shapes of a finished reply.
type choiceOut struct {
	Index        int             `json:"index"`
	Message      messageOut      `json:"message"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason string          `json:"finish_reason"`
}

type messageOut struct {
	Role      string        `json:"role"`
	Content   *string       `json:"content"`
	ToolCalls []toolCallOut `json:"tool_calls,omitempty"`
}

type toolCallOut struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Function functionOut `json:"function"`
}

type functionOut struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// argumentsText is a tool_use input as OpenAI's arguments string: compact JSON text.
func argumentsText(input json.RawMessage) (string, error) {
	if len(input) == 0 || isNull(input) {
		return "{}", nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, input); err != nil {
		return "", err
	}
	if buf.Len() == 0 || buf.Bytes()[0] != '{' {
		return "", errNotObject
	}
	return buf.String(), nil
}

// finishReason maps Anthropic's stop_reason to OpenAI's finish_reason.
func finishReason(stop string) string {
	switch stop {
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	case "tool_use":
		return "tool_calls"
	case "refusal":
		return "content_filter"
	}
	// end_turn, stop_sequence, pause_turn, and whatever a newer API adds.
	return "stop"
}

// marshal encodes v as JSON without escaping <, > and & (the text is the model's, not HTML).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func isNull(v []byte) bool { return string(bytes.TrimSpace(v)) == "null" }
