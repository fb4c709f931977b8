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
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// Defaults of the upstream configuration.
const (
	DefaultBaseURL    = "https://api.anthropic.com"
	DefaultAPIVersion = "2023-06-01"
	// DefaultMaxTokens is sent when neither the gateway nor the client set a
	// ceiling: Anthropic requires max_tokens on every request.
	DefaultMaxTokens = 4096
)

// maxReplyBytes bounds a non-streamed reply.
const maxReplyBytes = 64 << 20

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

	client, err := upstream.NewClient(cfg.CAFile)
	if err != nil {
		return nil, fmt.Errorf("anthropic upstream %s: %w", cfg.Name, err)
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
		client: client,
		now:    time.Now,
	}, nil
}

// Name is the upstream's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// URL is the Messages endpoint the adapter posts to.
func (p *Provider) URL() string { return p.url }

// CloseIdleConnections closes the pooled connections that are not in use.
func (p *Provider) CloseIdleConnections() { p.client.CloseIdleConnections() }

// call is a call of the Messages endpoint with body.
func (p *Provider) call(body []byte, stream bool) *upstream.Call {
	return p.callWith(p.header, body, stream)
}

// callWith is a call of the Messages endpoint with body and these headers.
func (p *Provider) callWith(header http.Header, body []byte, stream bool) *upstream.Call {
	return p.callSend(upstream.Post(p.client, p.url, header, body, upstream.Accept(stream)))
}

// callSend is a call of the Messages endpoint that send makes.
func (p *Provider) callSend(send func(context.Context) (*http.Response, error)) *upstream.Call {
	return &upstream.Call{
		Config: &p.cfg,
		Errors: errs,
		Send:   send,
		Status: func(status int, h http.Header, body []byte) *shlyuz.Error {
			return statusError(p.cfg.Name, status, h, body, p.now())
		},
		// A JSON reply in place of a stream: an error body, or a server that ignored "stream".
		JSONError: func(body []byte) *shlyuz.Error {
			if we := parseErrorBody(body); we.Parsed {
				return eventError(we)
			}
			return nil
		},
	}
}

// Chat makes a non-streamed call, bounded by the upstream's Timeout.
func (p *Provider) Chat(ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	if n := req.NativeOf(shlyuz.ProtocolAnthropic); n != nil {
		return p.nativeChat(ctx, req, n)
	}
	body, o, err := buildBody(req, false)
	if err != nil {
		return nil, err
	}
	data, err := p.call(body, false).Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	r, err := decodeReply(data, o)
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
	if n := req.NativeOf(shlyuz.ProtocolAnthropic); n != nil {
		return p.nativeStream(ctx, req, n)
	}
	body, o, err := buildBody(req, true)
	if err != nil {
		return nil, err
	}
	b, err := p.call(body, true).Open(ctx)
	if err != nil {
		return nil, err
	}
	cw := newChunkWriter(req.GenerationID, req.Model, p.now().Unix(), o.clientUsage)
	return newStream(b, cw, o), nil
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
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"` // redacted_thinking
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// wireUsage is Anthropic's usage object. input_tokens excludes the cached
// prompt: cache writes and reads are counted apart.
type wireUsage struct {
	InputTokens              int64          `json:"input_tokens"`
	OutputTokens             int64          `json:"output_tokens"`
	CacheCreationInputTokens int64          `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64          `json:"cache_read_input_tokens"`
	CacheCreation            *cacheCreation `json:"cache_creation"`
	ServerToolUse            *serverToolUse `json:"server_tool_use"`
}

// serverToolUse counts the uses of Anthropic's server tools that bear a
// fee of their own (web search: per search).
type serverToolUse struct {
	WebSearchRequests int64 `json:"web_search_requests"`
}

// cacheCreation splits cache_creation_input_tokens by the cache's lifetime.
type cacheCreation struct {
	Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

// prompt is the whole prompt in OpenAI's sense: fresh, cache-written and cache-read tokens.
func (w *wireUsage) prompt() int64 {
	return w.InputTokens + w.CacheCreationInputTokens + w.CacheReadInputTokens
}

func (w *wireUsage) usage() shlyuz.Usage {
	u := shlyuz.Usage{
		PromptTokens:     w.prompt(),
		CompletionTokens: w.OutputTokens,
		CachedTokens:     w.CacheReadInputTokens,
		CacheWriteTokens: w.CacheCreationInputTokens,
	}
	if c := w.CacheCreation; c != nil {
		u.CacheWrite1hTokens = c.Ephemeral1h
	}
	if st := w.ServerToolUse; st != nil {
		u.WebSearches = st.WebSearchRequests
	}
	return u.Normalized() // it fills TotalTokens
}

// decodeReply turns an Anthropic Message into a ChatResponse (Created
// unset): thinking as reasoning and reasoning_details when o.reasoning, the
// forced tool of a response_format as the message's text.
func decodeReply(data []byte, o options) (*shlyuz.ChatResponse, error) {
	var w wireReply
	if err := json.Unmarshal(data, &w); err != nil {
		e := upstream.Malformed("the reply is not valid JSON")
		e.Cause = err
		return nil, e
	}
	if w.Type == "error" || (len(w.Error) > 0 && !isNull(w.Error)) {
		return nil, eventError(parseErrorValue(w.Error))
	}
	if w.Type != "message" {
		return nil, upstream.Malformed("the reply is not a message")
	}
	var (
		text      strings.Builder
		calls     []toolCallOut
		reasoning strings.Builder
		details   []reasoningDetail
		answered  bool // the forced tool of a response_format was called
	)
	for _, b := range w.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking":
			reasoning.WriteString(b.Thinking)
			details = append(details, reasoningDetail{Type: "reasoning.text", Text: b.Thinking, Signature: b.Signature,
				Format: reasoningFormat, Index: len(details)})
		case "redacted_thinking":
			details = append(details, reasoningDetail{Type: "reasoning.encrypted", Data: b.Data, Format: reasoningFormat, Index: len(details)})
		case "tool_use":
			if o.jsonTool != "" && b.Name == o.jsonTool {
				args, err := argumentsText(b.Input)
				if err != nil {
					return nil, upstream.Malformed("a tool call's input is not a JSON object")
				}
				text.WriteString(args)
				answered = true
				continue
			}
			args, err := argumentsText(b.Input)
			if err != nil {
				return nil, upstream.Malformed("a tool call's input is not a JSON object")
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
	if answered && len(calls) == 0 && finish == "tool_calls" {
		finish = "stop"
	}
	msg := messageOut{Role: "assistant", ToolCalls: calls}
	if o.reasoning && len(details) > 0 {
		r := reasoning.String()
		msg.Reasoning, msg.ReasoningDetails = &r, details
	}
	if text.Len() > 0 || len(calls) == 0 {
		s := text.String()
		msg.Content = &s
	}
	choices, err := plainjson.Marshal([]choiceOut{{Index: 0, Message: msg, FinishReason: finish}})
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
	Role             string            `json:"role"`
	Content          *string           `json:"content"`
	Reasoning        *string           `json:"reasoning,omitempty"`
	ReasoningDetails []reasoningDetail `json:"reasoning_details,omitempty"`
	ToolCalls        []toolCallOut     `json:"tool_calls,omitempty"`
}

// reasoningDetail is OpenRouter's reasoning_details entry: Anthropic's
// thinking with its signature, or redacted thinking, to send back as is.
type reasoningDetail struct {
	Type      string `json:"type"` // reasoning.text, reasoning.encrypted
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	Format    string `json:"format"`
	Index     int    `json:"index"`
}

// reasoningFormat marks reasoning details as Anthropic's (OpenRouter's name).
const reasoningFormat = "anthropic-claude-v1"

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

func isNull(v []byte) bool { return string(bytes.TrimSpace(v)) == "null" }
