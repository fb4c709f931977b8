// Package fake is a fake upstream that speaks OpenAI's chat completions wire
// format exactly: the SSE order of role chunk, content chunks, finish chunk,
// optional usage chunk and [DONE]; non-streamed bodies with usage; errors in
// {"error":{"message","type","param","code"}}. Tests, demos and benchmarks of
// the gateway run against it over real HTTP.
//
// The reply is deterministic: the words "tok0 tok1 …", one per chunk,
// Options.ReplyTokens of them (capped by the request's max_tokens or
// max_completion_tokens, which then ends with finish_reason "length"). Prompt
// tokens are the characters of the messages' text divided by four (at least
// one) plus 85 per image part. A request that offers tools, and whose last
// message is not a tool result, is answered with a call of the first tool
// instead (arguments ToolArguments, finish_reason "tool_calls"). Script
// decides the answer for every protocol the fake speaks. OpenAI's reasoning
// models (o-series, gpt-5) refuse max_tokens and a temperature other than 1
// with OpenAI's error, as OpenAI does; a UsageMarker in the text asks for
// cached, cache-write and reasoning usage, and "n" for n alike choices.
//
// A request picks a fault with the X-Fake-Fault header or with "fault-<name>"
// in its model name (for example "fake/fault-500"); see the Fault constants.
package fake

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// FaultHeader is the request header that picks a fault.
const FaultHeader = "X-Fake-Fault"

// ReplyTokensHeader, when set to a number, overrides Options.ReplyTokens for one request.
const ReplyTokensHeader = "X-Fake-Reply-Tokens"

// The faults. Besides these, any HTTP status from 400 to 599 ("401", "503")
// answers with that status and an OpenAI error body.
const (
	Fault500            = "500"             // 500 server_error
	Fault429            = "429"             // 429 rate_limit_exceeded with Retry-After: 2
	FaultQuota          = "quota"           // 429 insufficient_quota
	FaultHang           = "hang"            // never answers, until the client goes away or Close
	FaultSlow           = "slow"            // the first byte comes 1s late (on top of Options.Latency)
	FaultCut            = "cut"             // the connection is dropped half way through the reply
	FaultMalformed      = "malformed"       // invalid JSON body, or an invalid chunk in a stream
	FaultNoUsage        = "nousage"         // no usage: no usage chunk in a stream even if asked, no usage in a body
	FaultMidstreamError = "midstream-error" // some chunks, then data: {"error":{…}} and the end
	FaultStall          = "stall"           // some chunks, then silence until the client goes away or Close
	// FaultRateOnce answers the first request of a conversation (its model
	// and last message) 429 with Retry-After: 1, and its repeats as usual:
	// an upstream's passing rate limit.
	FaultRateOnce = "429-once"
	// FaultEmpty answers 200 with a choice that says nothing and has no
	// finish reason, and no completion token in its usage (non-streamed).
	FaultEmpty = "empty"
)

// SlowDelay is how late FaultSlow's first byte comes.
const SlowDelay = time.Second

// Options tune the fake.
type Options struct {
	Latency      time.Duration // before the first byte of every reply
	TokensPerSec int           // stream pacing; 0: as fast as possible
	ReplyTokens  int           // tokens in a reply; 0: 16
	APIKey       string        // if set, requests must carry Authorization: Bearer <APIKey>
	// OnRequest, if set, is called for each chat request once its body was
	// read, before any latency or fault (tests use it to know a request arrived).
	OnRequest func(r *http.Request, body []byte)
}

// Server is the fake upstream, an http.Handler answering
// POST …/chat/completions and GET …/models under any prefix.
type Server struct {
	opts       Options
	requests   atomic.Int64
	inFlight   atomic.Int64
	seq        atomic.Uint64
	last       atomic.Pointer[[]byte]
	lastHeader atomic.Pointer[http.Header]
	done       chan struct{}
	closeOnce  sync.Once
	vids       videoFake    // video jobs (video.go)
	once       sync.Map     // conversations FaultRateOnce refused once
	gate       speechGate   // speech held before its first byte (audio.go)
	searches   atomic.Int64 // web searches answered (yandex_search.go)
}

// New makes a fake upstream.
func New(opts Options) *Server {
	if opts.ReplyTokens <= 0 {
		opts.ReplyTokens = 16
	}
	return &Server{opts: opts, done: make(chan struct{}), gate: speechGate{release: make(chan struct{})}}
}

// Requests is how many requests the fake received.
func (s *Server) Requests() int64 { return s.requests.Load() }

// InFlight is how many requests the fake is answering now.
func (s *Server) InFlight() int64 { return s.inFlight.Load() }

// LastRequest is the body of the last chat request, or nil.
func (s *Server) LastRequest() []byte {
	if b := s.last.Load(); b != nil {
		return *b
	}
	return nil
}

// LastHeader is the header of the last chat request, or nil.
func (s *Server) LastHeader() http.Header {
	if h := s.lastHeader.Load(); h != nil {
		return *h
	}
	return nil
}

// Close releases the requests held by FaultHang and FaultStall (their
// connections are dropped) and cuts latency waits short, so that an
// httptest.Server or http.Server can shut down. The fake keeps serving.
func (s *Server) Close() { s.closeOnce.Do(func() { close(s.done) }) }

// ServeHTTP answers one request. A request whose client went away while
// the fake held it (hang, stall, latency) gets no answer at all: its
// connection is dropped. Returning from the handler instead would let
// net/http finish the reply (an empty 200, or a stream's closing chunk) on a
// connection the client may still read: a TLS client's Close sends
// close_notify before it closes the socket, and the Transport delivers a
// reply that raced the cancellation, so a request held past its deadline
// would come back as an empty 200 in place of a timeout.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	s.route(w, r)
	if r.Context().Err() != nil { // the client went away: the connection is dead or dying
		Abort()
	}
}

// route answers one request by its path.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case strings.HasPrefix(p, "/gigachat/"): // GigaChat's own API, under a prefix of its own
		s.gigachat(w, r)
	case strings.HasSuffix(p, "/v2/web/search"): // Yandex Search API (yandex_search.go)
		s.yandexSearch(w, r)
	case strings.HasPrefix(p, "/salute/"): // SaluteSpeech's REST API (audio_salute.go)
		s.salute(w, r)
	case strings.HasPrefix(p, "/kling/"): // Kling's video API (video_kling.go)
		s.kling(w, r)
	case strings.HasPrefix(p, "/minimax/"): // MiniMax's video API (video_minimax.go)
		s.minimax(w, r)
	case strings.HasPrefix(p, "/bfl/"): // Black Forest Labs' FLUX API (images_bfl.go)
		s.bfl(w, r)
	case strings.HasSuffix(p, "/imageGenerationAsync"), strings.Contains(p, "/operations/yaart-"): // YandexART (images_yandex.go)
		s.yandexArt(w, r)
	case strings.Contains(p, "/speech/v1/"), strings.Contains(p, "/stt/v3/"), strings.Contains(p, "/tts/v3/"), strings.Contains(p, "/operations/yastt-"):
		s.speechKit(w, r) // Yandex SpeechKit (audio_yandex.go)
	case strings.HasSuffix(p, "/foundationModels/v1/textEmbedding"): // Yandex's embeddings (yandex_embeddings.go)
		s.yandexEmbeddings(w, r)
	case strings.HasSuffix(p, ":batchEmbedContents"): // Gemini's embeddings (embeddings.go)
		s.geminiEmbeddings(w, r)
	case strings.HasSuffix(p, ":predict"): // Imagen through the Gemini API (images.go)
		s.imagen(w, r)
	case strings.Contains(p, ":predictLongRunning"), strings.Contains(p, "/operations/"), strings.Contains(p, "/v1beta/files/"):
		s.veo(w, r) // Veo through the Gemini API (video_veo.go)
	case strings.HasSuffix(p, "/messages"): // Anthropic Messages
		s.anthropic(w, r)
	case strings.Contains(p, "/v1beta/models/"): // Gemini generateContent / streamGenerateContent
		s.gemini(w, r)
	case strings.Contains(p, "/foundationModels/v1/completion"): // YandexGPT native
		s.yandex(w, r)
	case strings.HasSuffix(p, "/audio/speech"): // OpenAI's speech (audio.go)
		s.speech(w, r)
	case strings.HasSuffix(p, "/audio/transcriptions"): // OpenAI's transcriptions (audio.go)
		s.transcriptions(w, r)
	case strings.Contains(p, "/images/"): // OpenAI's image API (images.go)
		s.images(w, r)
	case strings.Contains(p, "/videos"): // OpenAI's videos API (video.go)
		s.videos(w, r)
	case strings.HasSuffix(p, "/embeddings"): // OpenAI's embeddings (embeddings.go)
		s.embeddings(w, r)
	case strings.HasSuffix(p, "/chat/completions"):
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "", "Only POST is allowed here.")
			return
		}
		if !s.authorized(w, r) {
			return
		}
		s.chat(w, r)
	case strings.HasSuffix(r.URL.Path, "/models"):
		if !s.authorized(w, r) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(modelsBody)))
		_, _ = w.Write(modelsBody)
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "unknown_url", "Unknown request URL: "+r.Method+" "+r.URL.Path+".")
	}
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.APIKey == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ok && got == s.opts.APIKey {
		return true
	}
	if !ok {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "", "",
			"You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.")
		return false
	}
	// Like OpenAI, quote part of the key that was sent: the gateway must not pass it on.
	writeError(w, http.StatusUnauthorized, "invalid_request_error", "", "invalid_api_key",
		"Incorrect API key provided: "+maskKey(got)+". You can find your API key at https://platform.openai.com/account/api-keys.")
	return false
}

func maskKey(k string) string {
	if len(k) <= 8 {
		return "****"
	}
	return k[:3] + strings.Repeat("*", 8) + k[len(k)-4:]
}

// chatRequest is what the fake reads from an OpenAI request.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int64   `json:"max_tokens"`
	MaxCompletionTokens *int64   `json:"max_completion_tokens"`
	N                   int      `json:"n"`
	Temperature         *float64 `json:"temperature"`
	Modalities          []string `json:"modalities"` // "image": the reply carries an image (chatImage)
	ResponseFormat      *struct {
		Type       string `json:"type"` // text, json_object, json_schema
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	ToolChoice json.RawMessage `json:"tool_choice"` // "none", "auto", "required" or a function
}

const maxBody = 64 << 20

// ask is the request in the neutral terms Script decides on.
func (req *chatRequest) ask() Ask {
	a := Ask{Model: req.Model, Prompt: promptOf(req), MaxTokens: req.MaxCompletionTokens, N: req.N}
	if a.MaxTokens == nil {
		a.MaxTokens = req.MaxTokens
	}
	for _, t := range req.Tools {
		if t.Function.Name != "" {
			a.Tools = append(a.Tools, t.Function.Name)
		}
	}
	var choice struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	switch tc := string(req.ToolChoice); {
	case tc == `"none"`:
		a.Tools = nil
	case json.Unmarshal(req.ToolChoice, &choice) == nil && choice.Function.Name != "":
		a.Tools = []string{choice.Function.Name} // the named tool is the one called
		fallthrough
	case tc == `"required"` && len(a.Tools) > 0:
		for _, t := range req.Tools {
			if t.Function.Name == a.Tools[0] {
				a.ToolArguments = forcedArguments(t.Function.Parameters)
				break
			}
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_object":
			a.JSON = structuredReply(nil)
		case "json_schema":
			if rf.JSONSchema != nil {
				a.JSON = structuredReply(rf.JSONSchema.Schema)
			} else {
				a.JSON = structuredReply(nil)
			}
		}
	}
	if n := len(req.Messages); n > 0 {
		a.Conversation = req.Model + "\x00" + string(req.Messages[n-1].Content)
		// "function" is the deprecated spelling of a tool result.
		role := req.Messages[n-1].Role
		a.LastIsToolResult = role == "tool" || role == "function"
	}
	return a
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(r)
	if !ok {
		return // the client went away
	}

	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "",
			"We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)")
		return
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "model", "", "you must provide a model parameter")
		return
	}
	if msg, param, code := refusedArgument(body, req.Model); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", param, code, msg)
		return
	}
	if len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "messages", "", "Missing required parameter: 'messages'.")
		return
	}
	if req.StreamOptions != nil && !req.Stream {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "stream_options", "invalid_value",
			"The 'stream_options' parameter is only allowed when 'stream' is enabled.")
		return
	}

	ask := req.ask()
	ask.Usage = usageOf(body)
	if msg, param, code := refusedByReasoningModel(&req); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", param, code, msg)
		return
	}
	sc := s.Script(r, ask)
	if !s.Begin(r.Context(), sc.Fault) {
		return
	}
	switch status, quota := StatusOf(sc.Fault); {
	case quota:
		writeError(w, http.StatusTooManyRequests, "insufficient_quota", "", "insufficient_quota",
			"You exceeded your current quota, please check your plan and billing details.")
		return
	case sc.Fault == FaultEmpty && !req.Stream:
		b := []byte(`{"id":"chatcmpl-fake-` + sc.ID + `","object":"chat.completion","created":` + strconv.FormatInt(sc.Created, 10) +
			`,"model":` + string(appendJSONString(nil, req.Model)) + `,"choices":[{"index":0,"message":{"role":"assistant","content":""},` +
			`"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":` + strconv.Itoa(sc.PromptTokens) +
			`,"completion_tokens":0,"total_tokens":` + strconv.Itoa(sc.PromptTokens) + `}}`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	case sc.Fault == FaultRateOnce:
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, "requests", "", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 1s.")
		return
	case status != 0:
		writeStatusFault(w, status) // 429 comes with Retry-After: 2
		return
	}

	rep := newPlan(&req, sc)
	if req.Stream {
		s.stream(w, r, rep)
	} else {
		s.reply(w, rep)
	}
}

// faultFromModel finds "fault-<name>" in a model name; the name ends at a '/' or ':'.
func faultFromModel(model string) string {
	i := strings.Index(model, "fault-")
	if i < 0 {
		return ""
	}
	name := model[i+len("fault-"):]
	if j := strings.IndexAny(name, "/:"); j >= 0 {
		name = name[:j]
	}
	return name
}

// hold keeps the request until the client goes away; when the fake is closed
// first, it drops the connection, as a server that died would.
func (s *Server) hold(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.done:
		panic(http.ErrAbortHandler)
	}
}

// wait holds the request for d; false when the client went away. When the
// fake is closed meanwhile, it drops the connection.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	return s.await(ctx, t.C)
}

// await waits for c; false when the client went away. When the fake is
// closed meanwhile, it drops the connection.
func (s *Server) await(ctx context.Context, c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		panic(http.ErrAbortHandler)
	}
}

// replyPlan is what one OpenAI reply will say.
type replyPlan struct {
	fault        string
	prefix       []byte // `{"id":"…","object":"chat.completion.chunk","created":…,"model":"…","system_fingerprint":"fp_fake","choices":`
	id           string
	created      int64
	model        []byte // JSON string
	tokens       int    // words of text, or argument fragments of the tool call
	stop         int    // how many of them a stream sends before a fault interrupts it
	finish       string
	promptTokens int
	includeUsage bool
	toolCall     *ToolCall // set: the reply calls this tool instead of saying text
	sc           *Script
	image        []byte // set: the reply's message.images[0], a JSON object (chatImage)
	imageTokens  int    // its tokens, counted in completion_tokens as OpenRouter does
}

// newPlan renders the script's answer in OpenAI's terms.
func newPlan(req *chatRequest, sc *Script) *replyPlan {
	p := &replyPlan{
		fault:        sc.Fault,
		id:           "chatcmpl-fake-" + sc.ID,
		created:      sc.Created,
		model:        appendJSONString(nil, req.Model),
		tokens:       sc.Tokens,
		stop:         sc.StreamStop(),
		finish:       sc.Finish,
		promptTokens: sc.PromptTokens,
		includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage && sc.Fault != FaultNoUsage,
		toolCall:     sc.ToolCall,
		sc:           sc,
	}
	if slices.Contains(req.Modalities, "image") && sc.ToolCall == nil {
		p.image, p.imageTokens = chatImage()
	}
	b := make([]byte, 0, 160+len(p.model))
	b = append(b, `{"id":"`...)
	b = append(b, p.id...)
	b = append(b, `","object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, p.created, 10)
	b = append(b, `,"model":`...)
	b = append(b, p.model...)
	b = append(b, `,"system_fingerprint":"fp_fake","choices":`...)
	p.prefix = b
	return p
}

// promptOf counts the text characters and image parts of a request's
// messages: its Tokens are the fake's deterministic prompt count.
func promptOf(req *chatRequest) Prompt {
	chars, images := 0, 0
	for _, m := range req.Messages {
		c := m.Content
		if len(c) == 0 {
			continue
		}
		switch c[0] {
		case '"':
			var s string
			if json.Unmarshal(c, &s) == nil {
				chars += utf8.RuneCountInString(s)
			}
		case '[':
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if json.Unmarshal(c, &parts) == nil {
				for _, p := range parts {
					switch p.Type {
					case "text":
						chars += utf8.RuneCountInString(p.Text)
					case "image_url":
						images++
					}
				}
			}
		}
	}
	return Prompt{Chars: chars, Images: images}
}

// appendToken appends the text of token i: "tok0", " tok1", " tok2", …
func appendToken(b []byte, i int) []byte {
	if i > 0 {
		b = append(b, ' ')
	}
	b = append(b, "tok"...)
	return strconv.AppendInt(b, int64(i), 10)
}

// reply writes a non-streamed chat.completion.
func (s *Server) reply(w http.ResponseWriter, p *replyPlan) {
	b := make([]byte, 0, 512+p.tokens*8)
	b = append(b, `{"id":"`...)
	b = append(b, p.id...)
	b = append(b, `","object":"chat.completion","created":`...)
	b = strconv.AppendInt(b, p.created, 10)
	b = append(b, `,"model":`...)
	b = append(b, p.model...)
	b = append(b, `,"choices":[`...)
	for k := range p.sc.choices() { // n choices, alike
		if k > 0 {
			b = append(b, ',')
		}
		b = p.appendChoice(b, k)
	}
	b = append(b, ']')
	if p.fault != FaultNoUsage {
		b = append(b, `,"usage":`...)
		b = appendOpenAIUsage(b, p.sc, p.tokens+p.imageTokens)
	}
	b = append(b, `,"service_tier":"default","system_fingerprint":"fp_fake"}`...)

	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-Id", "req_"+p.id)
	writeWhole(w, p.fault, b, func() {
		writeError(w, http.StatusInternalServerError, "server_error", "", "",
			"The server had an error while processing your request. Sorry about that!")
	})
}

// appendChoice appends choice k of a non-streamed reply.
func (p *replyPlan) appendChoice(b []byte, k int) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(k), 10)
	if tc := p.toolCall; tc != nil {
		b = append(b, `,"message":{"role":"assistant","content":null,"tool_calls":[{"id":`...)
		b = appendJSONString(b, tc.ID)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = appendJSONString(b, tc.Name)
		b = append(b, `,"arguments":`...)
		b = appendJSONString(b, tc.Arguments)
		b = append(b, `}}],"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"`...)
	} else {
		b = append(b, `,"message":{"role":"assistant","content":`...)
		if p.sc.JSON != "" {
			b = appendJSONString(b, p.sc.JSON)
		} else {
			b = append(b, '"')
			for i := 0; i < p.tokens; i++ {
				b = appendToken(b, i)
			}
			b = append(b, '"')
		}
		if p.image != nil {
			b = append(b, `,"images":[`...)
			b = append(b, p.image...)
			b = append(b, ']')
		}
		b = append(b, `,"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"`...)
	}
	b = append(b, p.finish...)
	return append(b, `"}`...)
}

// sse writes one stream's events.
type sse struct {
	w       http.ResponseWriter
	flusher http.Flusher
	p       *replyPlan
	buf     []byte
}

func (c *sse) send(b []byte) bool {
	return writeFlush(c.w, c.flusher, b)
}

// start begins a chunk of choice k, up to its delta.
func (c *sse) start(k int) []byte {
	b := append(c.buf[:0], "data: "...)
	b = append(b, c.p.prefix...)
	b = append(b, `[{"index":`...)
	b = strconv.AppendInt(b, int64(k), 10)
	return append(b, `,"delta":`...)
}

// end closes a chunk begun by start with the finish_reason (a JSON value).
func (c *sse) end(b []byte, finish string) []byte {
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	b = append(b, finish...)
	b = append(b, "}]"...)
	if c.p.includeUsage {
		b = append(b, `,"usage":null`...)
	}
	b = append(b, "}\n\n"...)
	c.buf = b
	return b
}

// stream writes a chat.completion.chunk stream.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, p *replyPlan) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Request-Id", "req_"+p.id)
	w.WriteHeader(http.StatusOK)
	c := &sse{w: w, p: p, buf: make([]byte, 0, len(p.prefix)+256)}
	c.flusher, _ = w.(http.Flusher)
	ctx := r.Context()

	choices := p.sc.choices() // n choices, alike, their chunks interleaved
	for k := range choices {
		b := c.start(k)
		if tc := p.toolCall; tc != nil {
			// The call's id, type and name come once, first, with empty arguments.
			b = append(b, `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":`...)
			b = appendJSONString(b, tc.ID)
			b = append(b, `,"type":"function","function":{"name":`...)
			b = appendJSONString(b, tc.Name)
			b = append(b, `,"arguments":""}}],"refusal":null}`...)
		} else {
			b = append(b, `{"role":"assistant","content":""}`...)
		}
		if !c.send(c.end(b, "null")) {
			return
		}
	}

	// Where a fault interrupts the stream: half way, after at least one token.
	stop := p.stop

	var pace *time.Ticker
	if s.opts.TokensPerSec > 0 {
		pace = time.NewTicker(time.Second / time.Duration(s.opts.TokensPerSec))
		defer pace.Stop()
	}
	for i := 0; i < stop; i++ {
		if pace != nil {
			select {
			case <-pace.C:
			case <-ctx.Done():
				return
			case <-s.done:
				panic(http.ErrAbortHandler) // no half stream that ends as if it were complete
			}
		}
		for k := range choices {
			b := c.start(k)
			if tc := p.toolCall; tc != nil {
				b = append(b, `{"tool_calls":[{"index":0,"function":{"arguments":`...)
				b = appendJSONString(b, argumentsFragment(tc.Arguments, i, p.tokens))
				b = append(b, `}}]}`...)
			} else if p.sc.JSON != "" {
				b = append(b, `{"content":`...)
				b = appendJSONString(b, argumentsFragment(p.sc.JSON, i, p.tokens))
				b = append(b, '}')
			} else {
				b = append(b, `{"content":"`...)
				b = appendToken(b, i)
				b = append(b, `"}`...)
			}
			if !c.send(c.end(b, "null")) {
				return
			}
		}
	}

	switch p.fault {
	case FaultCut:
		panic(http.ErrAbortHandler) // drop the connection: no finish, no [DONE]
	case FaultStall:
		s.hold(ctx)
		return
	case FaultMalformed:
		c.send([]byte("data: {\"id\":\"" + p.id + "\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok\n\n"))
		c.send(doneEvent)
		return
	case FaultMidstreamError:
		c.send(midstreamErrorEvent)
		return
	}

	for k := range choices {
		if p.image != nil { // the image in a delta of its own, before the finish
			b := c.start(k)
			b = append(b, `{"images":[`...)
			b = append(b, p.image...)
			b = append(b, "]}"...)
			if !c.send(c.end(b, "null")) {
				return
			}
		}
		b := c.start(k)
		b = append(b, "{}"...)
		if !c.send(c.end(b, `"`+p.finish+`"`)) {
			return
		}
	}
	if p.includeUsage {
		b := append(c.buf[:0], "data: "...)
		b = append(b, p.prefix...)
		b = append(b, `[],"usage":`...)
		b = appendOpenAIUsage(b, p.sc, p.tokens+p.imageTokens)
		b = append(b, "}\n\n"...)
		c.buf = b
		if !c.send(b) {
			return
		}
	}
	c.send(doneEvent)
}

// argumentsFragment is piece i of n of a tool call's arguments, as a stream
// sends them: n nearly equal pieces, cut on rune boundaries; pieces beyond the
// text are empty.
func argumentsFragment(args string, i, n int) string {
	if n <= 0 {
		return ""
	}
	cut := func(k int) int {
		j := min(len(args), (len(args)*k+n-1)/n)
		for j < len(args) && !utf8.RuneStart(args[j]) {
			j++
		}
		return j
	}
	return args[cut(i):cut(i+1)]
}

var (
	doneEvent           = []byte("data: [DONE]\n\n")
	midstreamErrorEvent = []byte(`data: {"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}` + "\n\n")
	modelsBody          = func() []byte {
		ids := []string{"fake/model", "fake/fault-" + Fault500, "fake/fault-" + Fault429, "fake/fault-" + FaultQuota,
			"fake/fault-" + FaultCut, "fake/fault-" + FaultMidstreamError, "fake/fault-" + FaultNoUsage}
		b := []byte(`{"object":"list","data":[`)
		for i, id := range ids {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = appendJSONString(b, id)
			b = append(b, `,"object":"model","created":1760000000,"owned_by":"shlyuz-fake"}`...)
		}
		return append(b, "]}"...)
	}()
)

// writeStatusFault answers a numeric fault.
func writeStatusFault(w http.ResponseWriter, status int) {
	typ, code, msg := "invalid_request_error", "", http.StatusText(status)
	switch {
	case status == http.StatusUnauthorized:
		code, msg = "invalid_api_key", "Incorrect API key provided: sk-fake********cret."
	case status == http.StatusForbidden:
		typ, code, msg = "request_forbidden", "unsupported_country_region_territory", "Country, region, or territory not supported"
	case status == http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "2")
		typ, code, msg = "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 2s."
	case status >= 500:
		typ, msg = "server_error", "The server had an error while processing your request. Sorry about that!"
	case status == http.StatusBadRequest:
		code, msg = "context_length_exceeded", "This model's maximum context length is 128000 tokens."
		writeError(w, status, typ, "messages", code, msg)
		return
	}
	writeError(w, status, typ, "", code, msg)
}

// writeError writes OpenAI's error body.
func writeError(w http.ResponseWriter, status int, typ, param, code, msg string) {
	b := make([]byte, 0, 128+len(msg))
	b = append(b, `{"error":{"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, typ)
	b = append(b, `,"param":`...)
	if param == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, param)
	}
	b = append(b, `,"code":`...)
	if code == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, code)
	}
	b = append(b, "}}\n"...)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// appendJSONString appends s as a JSON string literal.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// refusedByReasoningModel is OpenAI's refusal of max_tokens and of a
// temperature other than 1 for its reasoning models (o1, o3, o4-mini, gpt-5
// and their dated names; not gpt-5-chat), with OpenAI's words; "" when the
// request is fine.
func refusedByReasoningModel(req *chatRequest) (msg, param, code string) {
	name := req.Model[strings.LastIndexByte(req.Model, '/')+1:]
	reasoning := false
	for _, p := range []string{"o1", "o3", "o4-mini", "gpt-5"} {
		if name == p || strings.HasPrefix(name, p+"-") || (p == "gpt-5" && strings.HasPrefix(name, "gpt-5.")) {
			reasoning = !strings.HasPrefix(name, "gpt-5-chat")
		}
	}
	switch {
	case !reasoning:
		return "", "", ""
	case req.MaxTokens != nil:
		return "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter"
	case req.Temperature != nil && *req.Temperature != 1:
		return "Unsupported value: 'temperature' does not support " + strconv.FormatFloat(*req.Temperature, 'g', -1, 64) +
			" with this model. Only the default (1) value is supported.", "temperature", "unsupported_value"
	}
	return "", "", ""
}
