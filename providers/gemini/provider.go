// Package gemini is the adapter for Google's Gemini API (AI Studio,
// generativelanguage.googleapis.com). It owns the translation of a gateway
// request, written in OpenAI's chat-completions terms, into a native
// generateContent body (system messages into systemInstruction, roles into
// user/model, images into inlineData/fileData parts, tools into
// functionDeclarations, tool results into functionResponse parts); the
// reading of native replies and alt=sse streams back into OpenAI's choices
// and chat.completion.chunk objects (stamped with our generation id and
// model id, tool call ids synthesized, running usage taken as it stands); and
// the mapping of Gemini's {"error":{"code","message","status"}} failures to
// shlyuz errors. The API key travels in the x-goog-api-key header, never in
// the URL.
package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// DefaultBaseURL is Google's endpoint, used when the configuration names none.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// maxReplyBytes bounds a non-streamed reply (images come base64).
const maxReplyBytes = 256 << 20

// Provider is one Gemini API endpoint. It is safe for concurrent use; its
// connections are pooled and kept alive.
type Provider struct {
	cfg    shlyuz.UpstreamConfig
	models string // base URL up to and including ".../v1beta/models/"
	header http.Header
	client *http.Client
	now    func() time.Time
}

var _ shlyuz.Provider = (*Provider)(nil)

// New makes the adapter for the upstream. An empty BaseURL means Google's
// own endpoint; a base URL that already ends in an API version
// (".../v1beta") is used as it is. Zero timeouts take the defaults of
// shlyuz.UpstreamConfig.WithDefaults. CAFile, when set, adds PEM roots to
// the system's.
func New(cfg shlyuz.UpstreamConfig) (*Provider, error) {
	cfg = cfg.WithDefaults()
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("gemini: upstream %q: base_url %q is not an http(s) URL", cfg.Name, cfg.BaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("gemini: upstream %q: base_url must not carry a query or fragment (the API key goes in api_key_env)", cfg.Name)
	}
	switch {
	case strings.HasSuffix(base, "/v1beta"), strings.HasSuffix(base, "/v1alpha"), strings.HasSuffix(base, "/v1"):
		base += "/models/"
	default:
		base += "/v1beta/models/"
	}

	client, err := upstream.NewClient(cfg.CAFile)
	if err != nil {
		return nil, fmt.Errorf("gemini: upstream %q: %w", cfg.Name, err)
	}

	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "shlyuz")
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	if cfg.APIKey != "" {
		h.Set("X-Goog-Api-Key", cfg.APIKey)
	}
	return &Provider{
		cfg:    cfg,
		models: base,
		header: h,
		client: client,
		now:    time.Now,
	}, nil
}

// Name is the upstream's configured name.
func (p *Provider) Name() string { return p.cfg.Name }

// CloseIdleConnections closes the pooled connections that are not in use.
func (p *Provider) CloseIdleConnections() { p.client.CloseIdleConnections() }

// endpoint is the URL of a method of the model. A model named
// "models/gemini-…" (the API's resource name) loses its prefix; a tuned
// model ("tunedModels/…") lives beside models/, not under it.
func (p *Provider) endpoint(model string, stream bool) string {
	model = strings.TrimPrefix(model, "models/")
	var u string
	if id, ok := strings.CutPrefix(model, "tunedModels/"); ok {
		u = strings.TrimSuffix(p.models, "models/") + "tunedModels/" + url.PathEscape(id)
	} else {
		u = p.models + url.PathEscape(model)
	}
	if stream {
		return u + ":streamGenerateContent?alt=sse"
	}
	return u + ":generateContent"
}

// call is a call of the model's generateContent (or streamGenerateContent) with body.
func (p *Provider) call(model string, body []byte, stream bool) *upstream.Call {
	return &upstream.Call{
		Config: &p.cfg,
		Errors: errs,
		Send:   upstream.Post(p.client, p.endpoint(model, stream), p.header, body, upstream.Accept(stream)),
		Status: func(status int, h http.Header, body []byte) *shlyuz.Error {
			return statusError(p.cfg.Name, model, status, h, body, p.now())
		},
		// A JSON reply in place of an event stream: an error body, or a server that ignored alt=sse.
		JSONError: func(body []byte) *shlyuz.Error {
			if ge, ok := parseErrorBody(body); ok {
				return ge.streamError()
			}
			return nil
		},
	}
}

// Chat makes a non-streamed call, bounded by the upstream's Timeout.
func (p *Provider) Chat(ctx context.Context, req *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	if n := req.NativeOf(shlyuz.ProtocolGemini); n != nil {
		return p.nativeChat(ctx, req, n)
	}
	body, serr := buildBody(req)
	if serr != nil {
		return nil, serr
	}
	data, err := p.call(req.UpstreamModel, body, false).Reply(ctx, maxReplyBytes)
	if err != nil {
		return nil, err
	}
	return decodeReply(data, req.GenerationID, p.now(), showsThoughts(req.Fields), searchesPerQuery(req.UpstreamModel))
}

// ChatStream opens a streamed call. It returns once the upstream's response
// headers arrived, which FirstByteTimeout bounds; IdleTimeout then bounds each
// gap between chunks.
func (p *Provider) ChatStream(ctx context.Context, req *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	if n := req.NativeOf(shlyuz.ProtocolGemini); n != nil {
		return p.nativeStream(ctx, req, n)
	}
	body, serr := buildBody(req)
	if serr != nil {
		return nil, serr
	}
	b, err := p.call(req.UpstreamModel, body, true).Open(ctx)
	if err != nil {
		return nil, err
	}
	return newStream(b, newChunker(req, p.now().Unix())), nil
}

// decodeReply turns a generateContent reply into OpenAI's choices.
func decodeReply(data []byte, generationID string, now time.Time, thoughts, perQuery bool) (*shlyuz.ChatResponse, error) {
	var w wireResponse
	if err := json.Unmarshal(data, &w); err != nil {
		e := upstream.Malformed("the reply is not valid JSON")
		e.Cause = err
		return nil, e
	}
	if w.Error != nil {
		return nil, w.Error.streamError()
	}
	if len(w.Candidates) == 0 {
		if w.PromptFeedback != nil && w.PromptFeedback.BlockReason != "" {
			return nil, blockedError(w.PromptFeedback)
		}
		return nil, upstream.Malformed("the reply has no candidates")
	}
	b := make([]byte, 0, 128)
	b = append(b, '[')
	first := ""
	for i := range w.Candidates { // a choice per candidate (candidateCount, the client's n)
		if i > 0 {
			b = append(b, ',')
		}
		var finish string
		b, finish = appendReplyChoice(b, &w.Candidates[i], generationID, thoughts)
		if i == 0 {
			first = finish
		}
	}
	b = append(b, ']')
	finish := first
	r := &shlyuz.ChatResponse{
		Created:      now.Unix(),
		Choices:      b,
		FinishReason: finish,
	}
	if w.UsageMetadata != nil {
		r.Usage = w.UsageMetadata.usage()
	}
	r.Usage.WebSearches = searchesOf(w.Candidates, perQuery)
	return r, nil
}

// appendReplyChoice appends the OpenAI choice of one candidate of a reply,
// and says its finish reason.
func appendReplyChoice(b []byte, c *candidate, generationID string, thoughts bool) ([]byte, string) {
	var text, reasoning strings.Builder
	var calls []toolCall
	if c.Content != nil {
		for i := range c.Content.Parts {
			part := &c.Content.Parts[i]
			switch {
			case part.Thought:
				if thoughts { // the thought summaries, when asked for; thinking is billed either way
					reasoning.WriteString(part.Text)
				}
			case part.FunctionCall != nil:
				calls = append(calls, newToolCall(generationID, callNumber(c.Index, len(calls)), part))
			default:
				text.WriteString(part.Text)
			}
		}
	}
	finish := finishReason(c.FinishReason, len(calls) > 0)
	if finish == "" {
		finish = "stop"
	}
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(c.Index), 10)
	b = append(b, `,"message":{"role":"assistant","content":`...)
	if text.Len() == 0 && len(calls) > 0 {
		b = append(b, "null"...)
	} else {
		b = plainjson.AppendString(b, text.String())
	}
	if reasoning.Len() > 0 {
		b = append(b, `,"reasoning":`...)
		b = plainjson.AppendString(b, reasoning.String())
	}
	if len(calls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i := range calls {
			if i > 0 {
				b = append(b, ',')
			}
			b = calls[i].appendJSON(b, -1)
		}
		b = append(b, ']')
	}
	if c.Content != nil {
		b, _ = appendImages(b, c.Content.Parts, true)
	}
	b = append(b, '}')
	b = upstream.AppendFinish(b, finish)
	return append(b, '}'), finish
}

// errs are the adapter's reasons for giving up a call.
var errs = upstream.NewErrors("gemini")

// ErrStreamClosed is what a Next blocked on the upstream returns when Close
// ends the stream. It wraps context.Canceled: closing is the caller's choice,
// never the upstream's fault.
var ErrStreamClosed = errs.Closed
