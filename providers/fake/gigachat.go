package fake

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"weak"
)

// GigaChat's own API, served under /gigachat/ (research/providers.md §4):
//
//	POST /gigachat/api/v2/oauth             the OAuth token endpoint (ngw.devices.sberbank.ru:9443/api/v2/oauth)
//	POST /gigachat/api/v1/chat/completions  chat v1, plain and streamed
//	POST /gigachat/api/v1/files             file upload (multipart: file, purpose=general)
//	GET  /gigachat/api/v1/models            the model list
//
// The OAuth endpoint checks Authorization: Basic <Options.APIKey> (any key
// when Options.APIKey is empty), a UUID RqUID header and a scope, and issues
// an opaque token whose expires_at is in Unix milliseconds. The other
// endpoints want Authorization: Bearer <a token it issued and that has not
// expired>, and answer 401 {"status":401,"message":"Unauthorized"} otherwise.
// Every error is rendered as GigaChat renders it: {"status":N,"message":"…"}
// ({"code":N,"message":"…"} from the OAuth endpoint).
const (
	gigaOAuthPath  = "/gigachat/api/v2/oauth"
	gigaChatPath   = "/gigachat/api/v1/chat/completions"
	gigaFilesPath  = "/gigachat/api/v1/files"
	gigaModelsPath = "/gigachat/api/v1/models"
)

// DefaultGigaChatTokenTTL is the lifetime of the fake's GigaChat tokens, as GigaChat's own.
const DefaultGigaChatTokenTTL = 30 * time.Minute

// gigaState is one Server's GigaChat state: the Server struct belongs to
// fake.go, so it lives in a map keyed by the server.
type gigaState struct {
	mu     sync.Mutex
	ttl    time.Duration
	tokens map[string]time.Time // issued token → expiry
	files  map[string]gigaFile  // uploaded file id → what it is

	issued       atomic.Int64
	saluteIssued atomic.Int64 // SaluteSpeech's tokens (audio_salute.go)
	unauthorized atomic.Int64
	uploads      atomic.Int64
}

type gigaFile struct {
	mime  string
	bytes int
}

// gigaStates maps weak.Pointer[Server] → *gigaState; an entry goes when its
// Server is garbage collected.
var gigaStates sync.Map

func (s *Server) giga() *gigaState {
	key := weak.Make(s)
	if v, ok := gigaStates.Load(key); ok {
		return v.(*gigaState)
	}
	v, loaded := gigaStates.LoadOrStore(key, &gigaState{
		ttl:    DefaultGigaChatTokenTTL,
		tokens: map[string]time.Time{},
		files:  map[string]gigaFile{},
	})
	if !loaded {
		runtime.AddCleanup(s, func(k weak.Pointer[Server]) { gigaStates.Delete(k) }, key)
	}
	return v.(*gigaState)
}

// SetGigaChatTokenTTL sets the lifetime of the GigaChat tokens issued from now
// on (DefaultGigaChatTokenTTL until set); d <= 0 restores the default.
func (s *Server) SetGigaChatTokenTTL(d time.Duration) {
	if d <= 0 {
		d = DefaultGigaChatTokenTTL
	}
	g := s.giga()
	g.mu.Lock()
	g.ttl = d
	g.mu.Unlock()
}

// ExpireGigaChatTokens makes every GigaChat token issued so far expired: the
// next request with one of them gets a 401, as it would from GigaChat after
// the token's 30 minutes.
func (s *Server) ExpireGigaChatTokens() {
	g := s.giga()
	g.mu.Lock()
	clear(g.tokens)
	g.mu.Unlock()
}

// GigaChatTokensIssued is how many tokens the GigaChat OAuth endpoint issued.
func (s *Server) GigaChatTokensIssued() int64 { return s.giga().issued.Load() }

// GigaChatUnauthorized is how many GigaChat API requests were refused with a
// 401 for a missing, unknown or expired token.
func (s *Server) GigaChatUnauthorized() int64 { return s.giga().unauthorized.Load() }

// GigaChatFilesUploaded is how many files were uploaded to the GigaChat files API.
func (s *Server) GigaChatFilesUploaded() int64 { return s.giga().uploads.Load() }

// gigachat answers GigaChat's native API.
func (s *Server) gigachat(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case gigaOAuthPath:
		if r.Method != http.MethodPost {
			writeGigaOAuthError(w, http.StatusMethodNotAllowed, 0, "method not allowed")
			return
		}
		s.gigaOAuth(w, r)
	case gigaChatPath:
		if r.Method != http.MethodPost {
			writeGigaError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		if s.gigaAuthorized(w, r) {
			s.gigaChat(w, r)
		}
	case gigaEmbeddingsPath: // gigachat_embeddings.go
		s.gigaEmbeddings(w, r)
	case gigaFilesPath:
		if r.Method != http.MethodPost {
			writeGigaError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		if s.gigaAuthorized(w, r) {
			s.gigaUpload(w, r)
		}
	case gigaFilesPath + "/" + strings.TrimPrefix(strings.TrimSuffix(r.URL.Path, "/content"), gigaFilesPath+"/") + "/content":
		if s.gigaAuthorized(w, r) {
			s.gigaDrawn(w, r)
		}
	case gigaModelsPath:
		if s.gigaAuthorized(w, r) {
			b := []byte(`{"object":"list","data":[{"id":"GigaChat","object":"model","owned_by":"salutedevices","type":"chat"},{"id":"GigaChat-2-Max","object":"model","owned_by":"salutedevices","type":"chat"}]}`)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			_, _ = w.Write(b)
		}
	default:
		writeGigaError(w, http.StatusNotFound, "Not Found")
	}
}

// gigaOAuth issues an access token.
func (s *Server) gigaOAuth(w http.ResponseWriter, r *http.Request) {
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Basic ")
	if !ok || key == "" || (s.opts.APIKey != "" && key != s.opts.APIKey) {
		writeGigaOAuthError(w, http.StatusUnauthorized, 6, "credentials doesn't match db data")
		return
	}
	if !isUUID(r.Header.Get("RqUID")) {
		writeGigaOAuthError(w, http.StatusBadRequest, 4, "RqUID is not a valid UUID")
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		writeGigaOAuthError(w, http.StatusBadRequest, 1, "scope data format invalid")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		writeGigaOAuthError(w, http.StatusBadRequest, 1, "scope data format invalid")
		return
	}
	// The same endpoint issues SaluteSpeech's tokens (audio_salute.go), for its scopes.
	service, issued := "GIGACHAT_API_", &s.giga().issued
	if strings.HasPrefix(r.URL.Path, "/salute/") {
		service, issued = "SALUTE_SPEECH_", &s.giga().saluteIssued
	}
	switch scope := r.PostForm.Get("scope"); scope {
	case "":
		writeGigaOAuthError(w, http.StatusBadRequest, 5, "scope is empty")
		return
	case service + "PERS", service + "B2B", service + "CORP":
	default:
		writeGigaOAuthError(w, http.StatusBadRequest, 7, "scope from db not fully includes consumed scope")
		return
	}

	var raw [24]byte
	_, _ = rand.Read(raw[:])
	tok := sberTokenPrefix(service) + hex.EncodeToString(raw[:])
	g := s.giga()
	now := time.Now()
	g.mu.Lock()
	exp := now.Add(g.ttl)
	for t, e := range g.tokens {
		if !now.Before(e) {
			delete(g.tokens, t)
		}
	}
	g.tokens[tok] = exp
	g.mu.Unlock()
	issued.Add(1)

	b := []byte(`{"access_token":"` + tok + `","expires_at":` + strconv.FormatInt(exp.UnixMilli(), 10) + `}`)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// gigaAuthorized checks the Bearer token; it answers the 401 itself.
func (s *Server) gigaAuthorized(w http.ResponseWriter, r *http.Request) bool {
	return s.sberAuthorized(w, r, "GIGACHAT_API_")
}

// sberTokenPrefix starts the tokens issued for the scopes of a service.
func sberTokenPrefix(service string) string {
	if service == "SALUTE_SPEECH_" {
		return "fake-salute-"
	}
	return "fake-giga-"
}

// sberAuthorized checks a Bearer token issued for the service's scopes; it
// answers the 401 itself.
func (s *Server) sberAuthorized(w http.ResponseWriter, r *http.Request, service string) bool {
	g := s.giga()
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ok && strings.HasPrefix(tok, sberTokenPrefix(service)) {
		g.mu.Lock()
		exp, known := g.tokens[tok]
		g.mu.Unlock()
		if known && time.Now().Before(exp) {
			return true
		}
	}
	g.unauthorized.Add(1)
	writeGigaError(w, http.StatusUnauthorized, "Unauthorized")
	return false
}

// gigaUpload stores an uploaded file (its size and type only).
func (s *Server) gigaUpload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		writeGigaError(w, http.StatusBadRequest, "Bad Request: the body is not a multipart form")
		return
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	if p := r.FormValue("purpose"); p != "general" {
		writeGigaError(w, http.StatusBadRequest, "Invalid params: purpose must be general")
		return
	}
	f, fh, err := r.FormFile("file")
	if err != nil {
		writeGigaError(w, http.StatusBadRequest, "Invalid params: no file")
		return
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return
	}
	mt, _, _ := mime.ParseMediaType(fh.Header.Get("Content-Type"))
	switch mt {
	case "image/jpeg", "image/png", "image/tiff", "image/bmp", "text/plain", "application/pdf":
	default:
		writeGigaError(w, http.StatusUnsupportedMediaType, "Unsupported file format: "+mt)
		return
	}
	if len(data) == 0 {
		writeGigaError(w, http.StatusBadRequest, "Invalid params: the file is empty")
		return
	}
	id := newUUID()
	g := s.giga()
	g.mu.Lock()
	g.files[id] = gigaFile{mime: mt, bytes: len(data)}
	g.mu.Unlock()
	g.uploads.Add(1)

	b := []byte(`{"bytes":` + strconv.Itoa(len(data)) + `,"created_at":` + strconv.FormatInt(time.Now().Unix(), 10) +
		`,"filename":`)
	b = appendJSONString(b, fh.Filename)
	b = append(b, `,"id":"`+id+`","object":"file","purpose":"general","access_policy":"private"}`...)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// gigaRequest is what the fake reads from a chat v1 request.
type gigaRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role         string          `json:"role"`
		Content      json.RawMessage `json:"content"`
		Name         string          `json:"name"`
		Attachments  []string        `json:"attachments"`
		FunctionCall *struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function_call"`
	} `json:"messages"`
	Functions []struct {
		Name string `json:"name"`
	} `json:"functions"`
	FunctionCall json.RawMessage `json:"function_call"`
	MaxTokens    *int64          `json:"max_tokens"`
	Stream       bool            `json:"stream"`
	N            int             `json:"n"` // alike choices
}

// gigaAsk validates a request as GigaChat does and reads it into an Ask; a
// non-empty message is the 4xx to answer.
func (s *Server) gigaAsk(req *gigaRequest) (a Ask, status int, msg string) {
	if req.Model == "" {
		return a, http.StatusBadRequest, "Invalid params: model is required"
	}
	if len(req.Messages) == 0 {
		return a, http.StatusUnprocessableEntity, "Invalid params: messages is empty"
	}
	a.Model = req.Model
	a.MaxTokens = req.MaxTokens
	a.N = req.N
	images := 0
	g := s.giga()
	for i, m := range req.Messages {
		switch m.Role {
		case "system":
			if i != 0 {
				return a, http.StatusUnprocessableEntity, "Invalid params: system message must be the first message"
			}
		case "user", "assistant", "function", "search_result", "function_in_progress":
		default:
			return a, http.StatusUnprocessableEntity, "Invalid params: unknown role " + strconv.Quote(m.Role)
		}
		if len(m.Content) > 0 && string(m.Content) != "null" {
			var text string
			if json.Unmarshal(m.Content, &text) != nil {
				return a, http.StatusUnprocessableEntity, "Invalid params: content must be a string"
			}
			a.Prompt.Chars += utf8.RuneCountInString(text)
		}
		if fc := m.FunctionCall; fc != nil {
			if m.Role != "assistant" || fc.Name == "" {
				return a, http.StatusUnprocessableEntity, "Invalid params: function_call"
			}
			if len(fc.Arguments) == 0 || fc.Arguments[0] != '{' || !json.Valid(fc.Arguments) {
				return a, http.StatusUnprocessableEntity, "Invalid params: function_call.arguments must be an object"
			}
		}
		if m.Role == "function" && (len(m.Content) == 0 || !json.Valid([]byte(unquoteJSON(m.Content)))) {
			return a, http.StatusUnprocessableEntity, "Invalid params: function result must be a valid JSON"
		}
		perMessage := 0
		for _, id := range m.Attachments {
			g.mu.Lock()
			f, ok := g.files[id]
			g.mu.Unlock()
			if !ok {
				return a, http.StatusBadRequest, "Invalid params: file " + strconv.Quote(id) + " not found"
			}
			if strings.HasPrefix(f.mime, "image/") {
				perMessage++
				images++
			}
		}
		if perMessage > 1 {
			return a, http.StatusUnprocessableEntity, "Invalid params: only one image per message is allowed"
		}
	}
	if images > 10 {
		return a, http.StatusUnprocessableEntity, "Invalid params: too many images in the request"
	}
	a.Prompt.Images = images
	a.LastIsToolResult = req.Messages[len(req.Messages)-1].Role == "function"

	// function_call: "auto" (or absent) offers every function, "none" none,
	// {"name":…} that one.
	var choice struct {
		Name string `json:"name"`
	}
	switch fc := strings.TrimSpace(string(req.FunctionCall)); {
	case fc == `"none"`:
		return a, 0, ""
	case strings.HasPrefix(fc, "{") && json.Unmarshal(req.FunctionCall, &choice) == nil && choice.Name != "":
		for _, f := range req.Functions {
			if f.Name == choice.Name {
				a.Tools = []string{f.Name}
				return a, 0, ""
			}
		}
		return a, http.StatusUnprocessableEntity, "Invalid params: function_call names an unknown function"
	}
	for _, f := range req.Functions {
		a.Tools = append(a.Tools, f.Name)
	}
	return a, 0, ""
}

// unquoteJSON is the text of a JSON string, or "" when it is not one.
func unquoteJSON(v json.RawMessage) string {
	var s string
	_ = json.Unmarshal(v, &s)
	return s
}

// gigaChat answers a chat v1 request.
func (s *Server) gigaChat(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(r)
	if !ok {
		return // the client went away
	}
	var req gigaRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeGigaError(w, http.StatusBadRequest, "Bad Request: the body is not valid JSON")
		return
	}
	ask, status, msg := s.gigaAsk(&req)
	if msg != "" {
		writeGigaError(w, status, msg)
		return
	}
	ask.Usage = usageOf(body)
	sc := s.Script(r, ask)
	if !s.Begin(r.Context(), sc.Fault) {
		return
	}
	if status, quota := StatusOf(sc.Fault); status != 0 {
		writeGigaStatusFault(w, status, quota)
		return
	}
	model := req.Model + ":fake"
	if len(req.Functions) == 0 && unquoteJSON(req.FunctionCall) == "auto" && sc.ToolCall == nil && !req.Stream {
		gigaDraw(w, sc, model) // the built-in text2image
		return
	}
	if req.Stream {
		s.gigaStream(w, r, sc, model)
	} else {
		gigaReply(w, sc, model)
	}
}

// gigaFinish is GigaChat's name of a script's finish reason.
func gigaFinish(f string) string {
	if f == "tool_calls" {
		return "function_call"
	}
	return f
}

func appendGigaUsage(b []byte, sc *Script) []byte {
	// GigaChat leaves the precached (cache-read) tokens out of prompt_tokens
	// and total_tokens; it reports no cache writes and no reasoning.
	completion := sc.Tokens * sc.choices()
	b = append(b, `"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.PromptTokens+completion), 10)
	b = append(b, `,"precached_prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.Extra.Cached), 10)
	return append(b, '}')
}

// appendGigaFunctionCall appends a message's function_call member and the
// functions_state_id GigaChat pairs with it.
func appendGigaFunctionCall(b []byte, sc *Script) []byte {
	b = append(b, `,"function_call":{"name":`...)
	b = appendJSONString(b, sc.ToolCall.Name)
	b = append(b, `,"arguments":`...)
	b = append(b, sc.ToolCall.Arguments...)
	b = append(b, `},"functions_state_id":"`...)
	b = append(b, gigaStateID(sc)...)
	return append(b, '"')
}

// gigaStateID is a stable UUID-shaped functions_state_id for a script.
func gigaStateID(sc *Script) string {
	n := sc.ID
	if len(n) > 12 {
		n = n[len(n)-12:]
	}
	return "00000000-0000-4000-8000-" + strings.Repeat("0", 12-len(n)) + n
}

func gigaHeaders(w http.ResponseWriter, sc *Script) {
	h := w.Header()
	h.Set("X-Request-Id", "fake-giga-req-"+sc.ID)
	h.Set("X-Session-Id", "fake-giga-session-"+sc.ID)
}

// gigaReply writes a non-streamed chat v1 reply.
func gigaReply(w http.ResponseWriter, sc *Script, model string) {
	b := make([]byte, 0, 384+sc.Tokens*8*sc.choices())
	b = append(b, `{"choices":[`...)
	for k := range sc.choices() {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"message":{"content":`...)
		if sc.ToolCall != nil {
			b = append(b, `"","role":"assistant"`...)
			b = appendGigaFunctionCall(b, sc)
		} else {
			b = appendJSONString(b, sc.Text())
			b = append(b, `,"role":"assistant"`...)
		}
		b = append(b, `},"index":`...)
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, `,"finish_reason":"`...)
		b = append(b, gigaFinish(sc.Finish)...)
		b = append(b, `"}`...)
	}
	b = append(b, `],"created":`...)
	b = strconv.AppendInt(b, sc.Created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, model)
	b = append(b, `,"object":"chat.completion"`...)
	if sc.Fault != FaultNoUsage {
		b = append(b, ',')
		b = appendGigaUsage(b, sc)
	}
	b = append(b, '}')

	gigaHeaders(w, sc)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	writeWhole(w, sc.Fault, b, func() {
		writeGigaError(w, http.StatusInternalServerError, "Internal Server Error")
	})
}

// gigaStream writes a streamed chat v1 reply: data-only SSE whose chunks say
// "object":"chat.completion" and have no id, the first delta carrying the
// role, the last chunk the finish_reason and the usage, then data: [DONE].
func (s *Server) gigaStream(w http.ResponseWriter, r *http.Request, sc *Script, model string) {
	gigaHeaders(w, sc)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(b []byte) bool { return writeFlush(w, flusher, b) }
	// tail closes a chunk begun with `data: {"choices":[{"delta":{…}` .
	tail := func(b []byte, k int, finish string, usage bool) []byte {
		b = append(b, `},"index":`...)
		b = strconv.AppendInt(b, int64(k), 10)
		if finish != "" {
			b = append(b, `,"finish_reason":"`...)
			b = append(b, finish...)
			b = append(b, '"')
		}
		b = append(b, `}],"created":`...)
		b = strconv.AppendInt(b, sc.Created, 10)
		b = append(b, `,"model":`...)
		b = appendJSONString(b, model)
		b = append(b, `,"object":"chat.completion"`...)
		if usage && sc.Fault != FaultNoUsage {
			b = append(b, ',')
			b = appendGigaUsage(b, sc)
		}
		return append(b, "}\n\n"...)
	}
	ctx := r.Context()

	if sc.ToolCall != nil {
		b := []byte(`data: {"choices":[{"delta":{"content":"","role":"assistant"`)
		b = appendGigaFunctionCall(b, sc)
		if send(tail(b, 0, gigaFinish(sc.Finish), true)) {
			send(doneEvent)
		}
		return
	}

	pace := s.Pacer()
	if pace != nil {
		defer pace.Stop()
	}
	stop := sc.StreamStop()
	for i := 0; i < stop; i++ {
		if i > 0 && !s.Pace(ctx, pace) {
			return
		}
		for k := range sc.choices() {
			b := append(make([]byte, 0, 256), `data: {"choices":[{"delta":{"content":`...)
			b = appendJSONString(b, Token(i))
			if i == 0 {
				b = append(b, `,"role":"assistant"`...)
			}
			if !send(tail(b, k, "", false)) {
				return
			}
		}
	}

	switch sc.Fault {
	case FaultCut:
		Abort() // no finish, no [DONE]
	case FaultStall:
		s.Hold(ctx)
		return
	case FaultMalformed:
		send([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"tok\n\n"))
		send(doneEvent)
		return
	case FaultMidstreamError:
		send([]byte(`data: {"status":500,"message":"Internal Server Error"}` + "\n\n"))
		return
	}
	for k := range sc.choices() { // the usage on the last choice's finish
		b := []byte(`data: {"choices":[{"delta":{"content":""`)
		if stop == 0 {
			b = append(b, `,"role":"assistant"`...)
		}
		if !send(tail(b, k, gigaFinish(sc.Finish), k == sc.choices()-1)) {
			return
		}
	}
	send(doneEvent)
}

// writeGigaStatusFault answers a numeric or quota fault the way GigaChat words it.
func writeGigaStatusFault(w http.ResponseWriter, status int, quota bool) {
	if quota {
		writeGigaError(w, http.StatusPaymentRequired, "Payment Required")
		return
	}
	msg := http.StatusText(status)
	switch status {
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "2")
		msg = "Too Many Requests"
	case http.StatusForbidden:
		msg = "Permission denied"
	case http.StatusNotFound:
		msg = "No such model"
	case http.StatusRequestEntityTooLarge:
		msg = "Payload too large"
	case http.StatusUnprocessableEntity:
		msg = "Invalid params: the request does not fit the model's context"
	}
	if msg == "" {
		msg = "Error " + strconv.Itoa(status)
	}
	writeGigaError(w, status, msg)
}

// writeGigaError writes GigaChat's API error body {"status":N,"message":"…"}.
func writeGigaError(w http.ResponseWriter, status int, msg string) {
	b := append([]byte(`{"status":`), strconv.Itoa(status)...)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, '}')
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeGigaOAuthError writes the OAuth endpoint's error body {"code":N,"message":"…"}.
func writeGigaOAuthError(w http.ResponseWriter, status, code int, msg string) {
	b := append([]byte(`{"code":`), strconv.Itoa(code)...)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, '}')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// isUUID reports whether s is a UUID in its 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// newUUID is a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// gigaDrawings are the pictures text2image drew, by file id (JPEG).
var gigaDrawings sync.Map

// gigaDraw answers as GigaChat's built-in text2image does: the picture as a
// file, named in the text by <img src="<id>" fuse="true"/>.
func gigaDraw(w http.ResponseWriter, sc *Script, model string) {
	id := newUUID()
	gigaDrawings.Store(id, makeImage(64, 64, "jpeg", 0))
	b := []byte(`{"choices":[{"message":{"content":`)
	b = appendJSONString(b, `Вот что получилось: <img src="`+id+`" fuse="true"/>`)
	b = append(b, `,"role":"assistant","functions_state_id":"`...)
	b = append(b, newUUID()...)
	b = append(b, `"},"index":0,"finish_reason":"stop"}],"created":`...)
	b = strconv.AppendInt(b, sc.Created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, model)
	b = append(b, `,"object":"chat.completion",`...)
	b = appendGigaUsage(b, sc)
	b = append(b, '}')
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(b)
}

// gigaDrawn serves a drawn picture (GET /files/{id}/content).
func (s *Server) gigaDrawn(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, gigaFilesPath+"/"), "/content")
	img, ok := gigaDrawings.Load(id)
	if !ok || r.Method != http.MethodGet {
		writeGigaError(w, http.StatusNotFound, "File not found")
		return
	}
	w.Header().Set("Content-Type", "image/jpg")
	_, _ = w.Write(img.([]byte))
}
