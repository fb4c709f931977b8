package fake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// yandexPath is YandexGPT's native completion endpoint.
const yandexPath = "/foundationModels/v1/completion"

// yandexRequest is what the fake reads from a native completion request.
type yandexRequest struct {
	ModelURI          string `json:"modelUri"`
	CompletionOptions *struct {
		Stream      bool            `json:"stream"`
		Temperature *float64        `json:"temperature"`
		MaxTokens   json.RawMessage `json:"maxTokens"`
	} `json:"completionOptions"`
	Messages []struct {
		Role         string  `json:"role"`
		Text         *string `json:"text"`
		ToolCallList *struct {
			ToolCalls []struct {
				FunctionCall *struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"functionCall"`
			} `json:"toolCalls"`
		} `json:"toolCallList"`
		ToolResultList *struct {
			ToolResults []struct {
				FunctionResult *struct {
					Name    string `json:"name"`
					Content string `json:"content"`
				} `json:"functionResult"`
			} `json:"toolResults"`
		} `json:"toolResultList"`
	} `json:"messages"`
	Tools []struct {
		Function *struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// yandex answers YandexGPT's native API, POST …/foundationModels/v1/completion:
// the model as modelUri gpt://<folder>/<model>/<version>, whose folder must be
// the x-folder-id header's; messages with text, toolCallList or
// toolResultList; completionOptions.maxTokens as a string. A reply is
// {"result":{"alternatives":[…],"usage":{…},"modelVersion":…}} with the
// token counts as strings; a stream is one such object per line, each with
// the whole text so far, status ALTERNATIVE_STATUS_PARTIAL until the last.
// Errors are grpc-gateway's {"error":{"grpcCode","httpCode","message","httpStatus","details"}}.
func (s *Server) yandex(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, yandexPath) {
		writeYandexError(w, http.StatusNotFound, "Not Found")
		return
	}
	if r.Method != http.MethodPost {
		writeYandexError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	if !s.yandexAuthorized(w, r) {
		return
	}
	body, ok := s.readBody(r)
	if !ok {
		return // the client went away
	}

	var req yandexRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeYandexError(w, http.StatusBadRequest, "Request body is not valid JSON: "+err.Error())
		return
	}
	folder, model, ok := parseModelURI(req.ModelURI)
	if !ok {
		writeYandexError(w, http.StatusBadRequest, "Invalid model_uri: "+strconv.Quote(req.ModelURI)+", expected gpt://<folder>/<model>/<version>")
		return
	}
	if got := r.Header.Get("x-folder-id"); got != folder {
		writeYandexError(w, http.StatusBadRequest, "The folder of model_uri ("+folder+") is not the folder of x-folder-id ("+got+")")
		return
	}
	ask := Ask{Model: model}
	stream := false
	if o := req.CompletionOptions; o != nil {
		stream = o.Stream
		if t := o.Temperature; t != nil && (*t < 0 || *t > 1) {
			writeYandexError(w, http.StatusBadRequest, "temperature must be between 0 and 1")
			return
		}
		if len(o.MaxTokens) > 0 {
			// int64 in proto-JSON: the documented form is a string.
			var v string
			var n int64
			err := json.Unmarshal(o.MaxTokens, &v)
			if err == nil {
				n, err = strconv.ParseInt(v, 10, 64)
			}
			if err != nil || n <= 0 {
				writeYandexError(w, http.StatusBadRequest, "completion_options.max_tokens must be a positive integer written as a string, got "+string(o.MaxTokens))
				return
			}
			ask.MaxTokens = &n
		}
	}
	if len(req.Messages) == 0 {
		writeYandexError(w, http.StatusBadRequest, "messages must not be empty")
		return
	}
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "user", "assistant":
		default:
			writeYandexError(w, http.StatusBadRequest, "messages["+strconv.Itoa(i)+"]: unknown role "+strconv.Quote(m.Role))
			return
		}
		kinds := 0
		if m.Text != nil {
			kinds++
			ask.Prompt.Chars += utf8.RuneCountInString(*m.Text)
		}
		if m.ToolCallList != nil {
			kinds++
			for _, c := range m.ToolCallList.ToolCalls {
				if c.FunctionCall == nil || c.FunctionCall.Name == "" ||
					(len(c.FunctionCall.Arguments) > 0 && c.FunctionCall.Arguments[0] != '{') {
					writeYandexError(w, http.StatusBadRequest, "messages["+strconv.Itoa(i)+"]: a function call needs a name and object arguments")
					return
				}
			}
		}
		if m.ToolResultList != nil {
			kinds++
			for _, res := range m.ToolResultList.ToolResults {
				if res.FunctionResult == nil || res.FunctionResult.Name == "" {
					writeYandexError(w, http.StatusBadRequest, "messages["+strconv.Itoa(i)+"]: a function result needs a name")
					return
				}
				ask.Prompt.Chars += utf8.RuneCountInString(res.FunctionResult.Content)
			}
		}
		if kinds != 1 {
			writeYandexError(w, http.StatusBadRequest, "messages["+strconv.Itoa(i)+"]: a message holds exactly one of text, toolCallList, toolResultList")
			return
		}
	}
	ask.LastIsToolResult = req.Messages[len(req.Messages)-1].ToolResultList != nil
	for _, t := range req.Tools {
		if t.Function == nil || t.Function.Name == "" {
			writeYandexError(w, http.StatusBadRequest, "tools: a function tool needs a name")
			return
		}
		ask.Tools = append(ask.Tools, t.Function.Name)
	}

	ask.Usage = usageOf(body)
	sc := s.Script(r, ask)
	if !s.Begin(r.Context(), sc.Fault) {
		return
	}
	if status, quota := StatusOf(sc.Fault); status != 0 {
		writeYandexFault(w, status, quota, folder)
		return
	}
	if stream {
		s.yandexStream(w, r, sc)
	} else {
		yandexReply(w, sc)
	}
}

// parseModelURI splits gpt://<folder>/<model>[/<version>].
func parseModelURI(uri string) (folder, model string, ok bool) {
	rest, ok := strings.CutPrefix(uri, "gpt://")
	if !ok {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" || (len(parts) == 3 && parts[2] == "") {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// yandexAuthorized checks Authorization: Api-Key <key> or Bearer <IAM token>.
func (s *Server) yandexAuthorized(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.APIKey == "" {
		return true
	}
	h := r.Header.Get("Authorization")
	got, ok := strings.CutPrefix(h, "Api-Key ")
	if !ok {
		got, ok = strings.CutPrefix(h, "Bearer ")
	}
	if ok && got == s.opts.APIKey {
		return true
	}
	if !ok {
		writeYandexError(w, http.StatusUnauthorized, "The request is not authenticated: send Authorization: Api-Key <key> or Bearer <IAM token>")
		return false
	}
	// Like the real API, quote part of the key: the gateway must not pass it on.
	writeYandexError(w, http.StatusUnauthorized, "Unknown api key '"+maskKey(got)+"'")
	return false
}

// grpcOf is the gRPC code grpc-gateway reports with an HTTP status.
func grpcOf(status int) int {
	switch status {
	case 400:
		return 3 // INVALID_ARGUMENT
	case 401:
		return 16 // UNAUTHENTICATED
	case 403:
		return 7 // PERMISSION_DENIED
	case 404, 405:
		return 5 // NOT_FOUND
	case 409:
		return 10 // ABORTED
	case 429:
		return 8 // RESOURCE_EXHAUSTED
	case 499:
		return 1 // CANCELLED
	case 501:
		return 12 // UNIMPLEMENTED
	case 503:
		return 14 // UNAVAILABLE
	case 504:
		return 4 // DEADLINE_EXCEEDED
	case 500:
		return 13 // INTERNAL
	}
	return 2 // UNKNOWN
}

// writeYandexFault answers a fault that comes before any byte.
func writeYandexFault(w http.ResponseWriter, status int, quota bool, folder string) {
	msg := http.StatusText(status)
	switch {
	case quota:
		msg = "ai.textGenerationCompletionTokensPerHour.rate rate quota limit exceed: allowed 100000 tokens"
	case status == http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "2")
		msg = "ai.textGenerationCompletionRequestsPerSecond.rate rate quota limit exceed: allowed 10 requests"
	case status == http.StatusBadRequest:
		msg = "Error in session internal_id=fake: number of input tokens must be no more than 32768, got 40000"
	case status == http.StatusUnauthorized:
		msg = "Unknown api key 'AQVN********cret'"
	case status == http.StatusForbidden:
		msg = "Permission to [resource-manager.folder " + folder + "] denied"
	case status == http.StatusNotFound:
		msg = "Model not found"
	case status >= 500:
		msg = "Internal server error"
	}
	writeYandexError(w, status, msg)
}

// appendYandexError appends the native error object.
func appendYandexError(b []byte, status int, msg string) []byte {
	b = append(b, `{"error":{"grpcCode":`...)
	b = strconv.AppendInt(b, int64(grpcOf(status)), 10)
	b = append(b, `,"httpCode":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, `,"httpStatus":`...)
	b = appendJSONString(b, http.StatusText(status))
	return append(b, `,"details":[]}}`...)
}

func writeYandexError(w http.ResponseWriter, status int, msg string) {
	b := append(appendYandexError(nil, status, msg), '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// Native alternative statuses.
const (
	yandexPartial   = "ALTERNATIVE_STATUS_PARTIAL"
	yandexFinal     = "ALTERNATIVE_STATUS_FINAL"
	yandexTruncated = "ALTERNATIVE_STATUS_TRUNCATED_FINAL"
	yandexToolCalls = "ALTERNATIVE_STATUS_TOOL_CALLS"
)

func yandexFinalStatus(sc *Script) string {
	switch sc.Finish {
	case "length":
		return yandexTruncated
	case "tool_calls":
		return yandexToolCalls
	}
	return yandexFinal
}

// appendYandexResult appends one {"result":…} object: the first words of the
// reply (or its tool call) with the status, and the usage so far.
func appendYandexResult(b []byte, sc *Script, words int, status string, usage bool) []byte {
	b = append(b, `{"result":{"alternatives":[{"message":{"role":"assistant",`...)
	completion := words
	if sc.ToolCall != nil && status == yandexToolCalls {
		completion = sc.Tokens
		b = append(b, `"toolCallList":{"toolCalls":[{"functionCall":{"name":`...)
		b = appendJSONString(b, sc.ToolCall.Name)
		b = append(b, `,"arguments":`...)
		b = append(b, sc.ToolCall.Arguments...)
		b = append(b, `}}]}`...)
	} else {
		b = append(b, `"text":"`...)
		for i := 0; i < words; i++ {
			b = appendToken(b, i)
		}
		b = append(b, '"')
	}
	b = append(b, `},"status":"`...)
	b = append(b, status...)
	b = append(b, `"}]`...)
	if usage {
		// YandexGPT reports no cache; its completion includes the reasoning.
		completion += sc.Extra.Reasoning
		b = append(b, `,"usage":{"inputTextTokens":"`...)
		b = strconv.AppendInt(b, int64(sc.PromptTokens), 10)
		b = append(b, `","completionTokens":"`...)
		b = strconv.AppendInt(b, int64(completion), 10)
		b = append(b, `","totalTokens":"`...)
		b = strconv.AppendInt(b, int64(sc.PromptTokens+completion), 10)
		b = append(b, `","completionTokensDetails":{"reasoningTokens":"`...)
		b = strconv.AppendInt(b, int64(sc.Extra.Reasoning), 10)
		b = append(b, `"}}`...)
	}
	return append(b, `,"modelVersion":"fake"}}`...)
}

// yandexReply writes a non-streamed reply.
func yandexReply(w http.ResponseWriter, sc *Script) {
	b := appendYandexResult(make([]byte, 0, 256+sc.Tokens*8), sc, sc.Tokens, yandexFinalStatus(sc), sc.Fault != FaultNoUsage)
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-Id", "fake-"+sc.ID)
	writeWhole(w, sc.Fault, b, func() {
		writeYandexError(w, http.StatusInternalServerError, "Internal server error")
	})
}

// yandexStream writes a native stream: one JSON object per line, each with
// the whole text so far.
func (s *Server) yandexStream(w http.ResponseWriter, r *http.Request, sc *Script) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-Id", "fake-"+sc.ID)
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(b []byte) bool { return writeFlush(w, flusher, b) }
	ctx := r.Context()
	usage := sc.Fault != FaultNoUsage

	stop := sc.StreamStop()
	if sc.ToolCall != nil {
		stop = 0 // a tool call comes whole, in the last object
	}
	pace := s.Pacer()
	if pace != nil {
		defer pace.Stop()
	}
	buf := make([]byte, 0, 256+sc.Tokens*8)
	for i := 0; i < stop; i++ {
		if !s.Pace(ctx, pace) {
			return
		}
		buf = append(appendYandexResult(buf[:0], sc, i+1, yandexPartial, usage), '\n')
		if !send(buf) {
			return
		}
	}

	switch sc.Fault {
	case FaultCut:
		Abort() // drop the connection: no final object
	case FaultStall:
		s.Hold(ctx)
		return
	case FaultMalformed:
		send([]byte(`{"result":{"alternatives":[{"message":{"role":"assistant","text":"tok` + "\n"))
		return
	case FaultMidstreamError:
		send(append(appendYandexError(nil, http.StatusInternalServerError, "Internal server error"), '\n'))
		return
	}
	buf = append(appendYandexResult(buf[:0], sc, sc.Tokens, yandexFinalStatus(sc), usage), '\n')
	send(buf)
}
