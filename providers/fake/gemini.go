package fake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// gemini answers Google's Gemini API (POST …/v1beta/models/{model}:generateContent
// and :streamGenerateContent) in its native shapes: the key checked in
// x-goog-api-key (or the key query parameter), the request validated as the
// real API does (known fields only, user/model roles, one datum per part,
// object args and responses, Gemini's Schema subset in "parameters", at most
// five stop sequences, thought signatures on Gemini 3 function calls),
// replies as a GenerateContentResponse, streams (alt=sse) as data: events with
// running usageMetadata and no [DONE], errors as
// {"error":{"code","message","status"}}.
//
// Besides the common faults it knows two of its own: "location" (400
// FAILED_PRECONDITION, the region block) and "blocked" (200 with
// promptFeedback.blockReason and no candidates).
func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	rest := p[strings.LastIndex(p, "/models/")+len("/models/"):]
	colon := strings.LastIndexByte(rest, ':')
	if r.Method != http.MethodPost || colon <= 0 {
		writeGeminiError(w, http.StatusNotFound, "NOT_FOUND", "Method not found.", "")
		return
	}
	model, method := rest[:colon], rest[colon+1:]
	if method != "generateContent" && method != "streamGenerateContent" {
		writeGeminiError(w, http.StatusNotFound, "NOT_FOUND", "Method not found.", "")
		return
	}
	body, ok := s.readBody(r)
	if !ok {
		return // the client went away
	}
	if !s.geminiAuthorized(w, r) {
		return
	}
	ask, msg := parseGemini(model, body)
	if msg != "" {
		writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", msg, "")
		return
	}
	if s.geminiAudio(w, r, model, method, body) { // audio in or out (audio_gemini.go)
		return
	}

	ask.Usage = usageOf(body)
	sc := s.Script(r, ask)
	if !s.Begin(r.Context(), sc.Fault) {
		return
	}
	switch status, quota := StatusOf(sc.Fault); {
	case quota:
		writeGeminiError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", geminiQuotaMessage(model, false),
			geminiQuotaDetails(model, "GenerateRequestsPerDayPerProjectPerModel-FreeTier", ""))
		return
	case status != 0:
		writeGeminiStatusFault(w, status, model)
		return
	case sc.Fault == geminiFaultLocation:
		writeGeminiError(w, http.StatusBadRequest, "FAILED_PRECONDITION", "User location is not supported for the API use.", "")
		return
	case sc.Fault == geminiFaultBlocked:
		geminiBlocked(w, model, sc, method == "streamGenerateContent" && r.URL.Query().Get("alt") == "sse")
		return
	}
	g := &geminiWriter{w: w, model: model, sc: sc, media: ask.Prompt}
	var asked struct {
		GenerationConfig struct {
			ResponseModalities []string `json:"responseModalities"`
		} `json:"generationConfig"`
		Tools []struct {
			GoogleSearch json.RawMessage `json:"googleSearch"`
		} `json:"tools"`
	}
	if json.Unmarshal(body, &asked) == nil && slices.Contains(asked.GenerationConfig.ResponseModalities, "IMAGE") {
		g.image = true
	}
	for _, t := range asked.Tools {
		g.grounded = g.grounded || t.GoogleSearch != nil
	}
	if method == "streamGenerateContent" {
		g.array = r.URL.Query().Get("alt") != "sse"
		s.geminiStream(w, r, g)
	} else {
		g.reply()
	}
}

// The Gemini-only faults.
const (
	geminiFaultLocation = "location" // 400 FAILED_PRECONDITION: user location is not supported
	geminiFaultBlocked  = "blocked"  // 200, promptFeedback.blockReason PROHIBITED_CONTENT, no candidates
)

// geminiSignaturePrefix starts every thought signature the fake issues (base64-encoded).
const geminiSignaturePrefix = "fake-thought:"

// geminiAuthorized checks the API key as Google does: none is a 403, a wrong
// one a 400 API_KEY_INVALID.
func (s *Server) geminiAuthorized(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.APIKey == "" {
		return true
	}
	key := r.Header.Get("X-Goog-Api-Key")
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	switch {
	case key == s.opts.APIKey:
		return true
	case key == "":
		writeGeminiError(w, http.StatusForbidden, "PERMISSION_DENIED",
			"Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.", "")
	default:
		writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
			`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}},{"@type":"type.googleapis.com/google.rpc.LocalizedMessage","locale":"en-US","message":"API key not valid. Please pass a valid API key."}]`)
	}
	return false
}

// geminiRequest is what the fake reads from a generateContent request.
type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Parameters           json.RawMessage `json:"parameters"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	ToolConfig *struct {
		FunctionCallingConfig *struct {
			Mode                 string   `json:"mode"`
			AllowedFunctionNames []string `json:"allowedFunctionNames"`
		} `json:"functionCallingConfig"`
	} `json:"toolConfig"`
	GenerationConfig *struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		MaxOutputTokens    *int64          `json:"maxOutputTokens"`
		CandidateCount     int             `json:"candidateCount"`
		Temperature        *float64        `json:"temperature"`
		TopP               *float64        `json:"topP"`
		StopSequences      []string        `json:"stopSequences"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text       *string `json:"text"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	} `json:"fileData"`
	FunctionCall *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	Thought          bool   `json:"thought"`
	ThoughtSignature string `json:"thoughtSignature"`
}

// geminiFields are the members the API knows, by object. The fake reads
// camelCase only, as Google's SDKs send it (the real API also takes snake_case).
var geminiFields = map[string]map[string]bool{
	"request": {"contents": true, "systemInstruction": true, "tools": true, "toolConfig": true,
		"generationConfig": true, "safetySettings": true, "cachedContent": true, "model": true},
	"generationConfig": {"stopSequences": true, "responseMimeType": true, "responseSchema": true,
		"responseJsonSchema": true, "responseModalities": true, "candidateCount": true, "maxOutputTokens": true,
		"temperature": true, "topP": true, "topK": true, "seed": true, "presencePenalty": true,
		"frequencyPenalty": true, "responseLogprobs": true, "logprobs": true, "enableEnhancedCivicAnswers": true,
		"speechConfig": true, "thinkingConfig": true, "imageConfig": true, "mediaResolution": true},
	"part": {"text": true, "inlineData": true, "fileData": true, "functionCall": true, "functionResponse": true,
		"thought": true, "thoughtSignature": true, "executableCode": true, "codeExecutionResult": true,
		"videoMetadata": true},
	"schema": {"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
		"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
		"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "example": true,
		"anyOf": true, "propertyOrdering": true, "default": true, "items": true, "minimum": true, "maximum": true},
}

// geminiUnknown names the first member of obj the object kind does not know, or "".
func geminiUnknown(obj json.RawMessage, kind string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return ""
	}
	for k := range m {
		if !geminiFields[kind][k] {
			return k
		}
	}
	return ""
}

// geminiSchemaError checks a "parameters" schema against Gemini's Schema
// type: known members only, and an OBJECT must have properties.
func geminiSchemaError(raw json.RawMessage, at string) string {
	if k := geminiUnknown(raw, "schema"); k != "" {
		return "Invalid JSON payload received. Unknown name \"" + k + "\" at '" + at + "': Cannot find field."
	}
	var sch struct {
		Type       json.RawMessage            `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
		AnyOf      []json.RawMessage          `json:"anyOf"`
	}
	if err := json.Unmarshal(raw, &sch); err != nil {
		return "Invalid JSON payload received. Proto field is not repeating, cannot start list at '" + at + "'."
	}
	var typ string
	if len(sch.Type) > 0 && json.Unmarshal(sch.Type, &typ) != nil {
		return "Invalid JSON payload received. Invalid value at '" + at + ".type'."
	}
	if strings.EqualFold(typ, "object") && len(sch.Properties) == 0 {
		return "* GenerateContentRequest." + at + ".properties: should be non-empty for OBJECT type\n"
	}
	for name, p := range sch.Properties {
		if msg := geminiSchemaError(p, at+".properties["+name+"].value"); msg != "" {
			return msg
		}
	}
	if len(sch.Items) > 0 {
		if msg := geminiSchemaError(sch.Items, at+".items"); msg != "" {
			return msg
		}
	}
	for i, a := range sch.AnyOf {
		if msg := geminiSchemaError(a, at+".any_of["+strconv.Itoa(i)+"]"); msg != "" {
			return msg
		}
	}
	return ""
}

// geminiSignatureOK accepts a signature the fake issued, or one of the values
// Google documents for skipping the validation.
func geminiSignatureOK(sig string) bool {
	if sig == "skip_thought_signature_validator" || sig == "context_engineering_is_the_way_to_go" {
		return true
	}
	raw, err := base64.StdEncoding.DecodeString(sig)
	return err == nil && strings.HasPrefix(string(raw), geminiSignaturePrefix)
}

// geminiThinks reports whether the model signs its function calls and
// validates the signatures: gemini-3 and later.
func geminiThinks(model string) bool {
	rest, ok := strings.CutPrefix(model, "gemini-")
	if !ok {
		return false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	major, err := strconv.Atoi(rest[:end])
	return err == nil && major >= 3
}

// parseGemini validates a request the way the real API does and reads it into
// an Ask; msg is the 400 message when the request is refused.
func parseGemini(model string, body []byte) (ask Ask, msg string) {
	var req geminiRequest
	if !json.Valid(body) || json.Unmarshal(body, &req) != nil {
		return ask, "Invalid JSON payload received. Unexpected token."
	}
	if k := geminiUnknown(body, "request"); k != "" {
		return ask, "Invalid JSON payload received. Unknown name \"" + k + "\": Cannot find field."
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(body, &top)
	if gc, ok := top["generationConfig"]; ok {
		if k := geminiUnknown(gc, "generationConfig"); k != "" {
			return ask, "Invalid JSON payload received. Unknown name \"" + k + "\" at 'generation_config': Cannot find field."
		}
	}
	if len(req.Contents) == 0 {
		return ask, "* GenerateContentRequest.contents: contents is not specified\n"
	}
	ask.Model = model

	countText := func(c *geminiContent) {
		for _, p := range c.Parts {
			if p.Text != nil && !p.Thought {
				ask.Prompt.Chars += utf8.RuneCountInString(*p.Text)
			}
		}
	}
	if si := req.SystemInstruction; si != nil {
		countText(si)
	}
	var rawContents []struct {
		Parts []json.RawMessage `json:"parts"`
	}
	_ = json.Unmarshal(top["contents"], &rawContents)
	thinks := geminiThinks(model)
	for i := range req.Contents {
		c := &req.Contents[i]
		at := "contents[" + strconv.Itoa(i) + "]"
		if c.Role != "user" && c.Role != "model" && c.Role != "" {
			return ask, "Please use a valid role: user, model."
		}
		if len(c.Parts) == 0 {
			return ask, "* GenerateContentRequest." + at + ".parts: contents.parts must not be empty.\n"
		}
		firstCall := true
		for j := range c.Parts {
			p := &c.Parts[j]
			pat := at + ".parts[" + strconv.Itoa(j) + "]"
			if j < len(rawContents[i].Parts) {
				if k := geminiUnknown(rawContents[i].Parts[j], "part"); k != "" {
					return ask, "Invalid JSON payload received. Unknown name \"" + k + "\" at '" + pat + "': Cannot find field."
				}
			}
			n := 0
			for _, set := range []bool{p.Text != nil, p.InlineData != nil, p.FileData != nil, p.FunctionCall != nil, p.FunctionResponse != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				return ask, "* GenerateContentRequest." + pat + ".data: required oneof field 'data' must have one initialized field\n"
			}
			switch {
			case p.InlineData != nil:
				if p.InlineData.MimeType == "" || p.InlineData.Data == "" {
					return ask, "* GenerateContentRequest." + pat + ".inline_data: mime_type and data must be set\n"
				}
				if _, err := base64.StdEncoding.DecodeString(p.InlineData.Data); err != nil {
					return ask, "Invalid value at '" + pat + ".inline_data.data' (TYPE_BYTES), Base64 decoding failed"
				}
				if !geminiMedia(model, p.InlineData.MimeType, p.InlineData.Data, &ask.Prompt) {
					ask.Prompt.Images++
				}
			case p.FileData != nil:
				if p.FileData.FileURI == "" {
					return ask, "* GenerateContentRequest." + pat + ".file_data.file_uri: file_uri must be set\n"
				}
				ask.Prompt.Images++
			case p.FunctionCall != nil:
				if c.Role != "model" {
					return ask, "Please ensure that function call turns come immediately after a user turn or after a function response turn."
				}
				if a := bytes.TrimSpace(p.FunctionCall.Args); len(a) > 0 && a[0] != '{' {
					return ask, "Invalid JSON payload received. Unknown name \"args\" at '" + pat + ".function_call': Proto field is not repeating, cannot start list."
				}
				if thinks && firstCall && !geminiSignatureOK(p.ThoughtSignature) {
					return ask, "Function call `" + p.FunctionCall.Name + "` in the " + strconv.Itoa(i+1) +
						". content block is missing a `thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures"
				}
				firstCall = false
			case p.FunctionResponse != nil:
				if a := bytes.TrimSpace(p.FunctionResponse.Response); len(a) == 0 || a[0] != '{' {
					return ask, "Invalid JSON payload received. Unknown name \"response\" at '" + pat + ".function_response': Proto field is not repeating, cannot start list."
				}
				if p.FunctionResponse.Name == "" {
					return ask, "* GenerateContentRequest." + pat + ".function_response.name: Name cannot be empty.\n"
				}
			}
		}
		countText(c)
	}
	last := &req.Contents[len(req.Contents)-1]
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			ask.LastIsToolResult = true
		}
	}
	for i, t := range req.Tools {
		for j, d := range t.FunctionDeclarations {
			at := "tools[" + strconv.Itoa(i) + "].function_declarations[" + strconv.Itoa(j) + "]"
			if d.Name == "" {
				return ask, "* GenerateContentRequest." + at + ".name: Name cannot be empty.\n"
			}
			if len(d.Parameters) > 0 && len(d.ParametersJSONSchema) > 0 {
				return ask, "* GenerateContentRequest." + at + ": parameters and parameters_json_schema are mutually exclusive\n"
			}
			if len(d.Parameters) > 0 {
				if msg := geminiSchemaError(d.Parameters, at+".parameters"); msg != "" {
					return ask, msg
				}
			}
			ask.Tools = append(ask.Tools, d.Name)
		}
	}
	if msg := geminiToolConfig(&req, &ask); msg != "" {
		return ask, msg
	}
	if gc := req.GenerationConfig; gc != nil {
		ask.MaxTokens = gc.MaxOutputTokens
		ask.N = gc.CandidateCount
		if t := gc.Temperature; t != nil && (*t < 0 || *t > 2) {
			return ask, "* GenerateContentRequest.generation_config.temperature: must be in the range [0.0, 2.0]\n"
		}
		if t := gc.TopP; t != nil && (*t < 0 || *t > 1) {
			return ask, "* GenerateContentRequest.generation_config.top_p: must be in the range [0.0, 1.0]\n"
		}
		if len(gc.StopSequences) > 5 {
			return ask, "* GenerateContentRequest.generation_config.stop_sequences: at most 5 stop sequences are allowed\n"
		}
		if len(gc.ResponseSchema) > 0 && len(gc.ResponseJSONSchema) > 0 {
			return ask, "* GenerateContentRequest.generation_config: response_schema and response_json_schema are mutually exclusive\n"
		}
		if (len(gc.ResponseSchema) > 0 || len(gc.ResponseJSONSchema) > 0) && gc.ResponseMimeType != "application/json" {
			return ask, "* GenerateContentRequest.generation_config.response_mime_type: a response schema needs response_mime_type application/json\n"
		}
		if gc.ResponseMimeType == "application/json" {
			schema := gc.ResponseJSONSchema
			if len(schema) == 0 {
				schema = gc.ResponseSchema
			}
			ask.JSON = structuredReply(schema)
		}
	}
	return ask, ""
}

// geminiFinish is Gemini's name of a Script's finish.
func geminiFinish(f string) string {
	if f == "length" {
		return "MAX_TOKENS"
	}
	return "STOP" // a function call finishes with STOP too
}

// geminiImageTokens are an output image's tokens (Gemini 2.5 Flash Image's
// count for up to 1024²).
const geminiImageTokens = 1290

// geminiWriter renders one reply or stream.
type geminiWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	model   string
	sc      *Script
	array   bool   // a stream without alt=sse: one JSON array
	sent    int    // chunks sent
	image   bool   // responseModalities has IMAGE: the last chunk carries an inlineData PNG
	media   Prompt // the prompt's documents, video and sound, reported by modality
	// grounded: the request offers googleSearch; the finishing candidate
	// carries groundingMetadata with two search queries.
	grounded bool
}

// appendUsage appends "usageMetadata" with completion tokens so far.
func (g *geminiWriter) appendUsage(b []byte, completion int) []byte {
	sc := g.sc
	p, thoughts := sc.PromptTokens+sc.Extra.Cached, sc.Extra.Reasoning // Gemini's cache has one lifetime: no writes
	completion *= sc.choices()
	b = append(b, `"usageMetadata":{"promptTokenCount":`...)
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, `,"candidatesTokenCount":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	if sc.Extra.Cached > 0 {
		b = append(b, `,"cachedContentTokenCount":`...)
		b = strconv.AppendInt(b, int64(sc.Extra.Cached), 10)
	}
	if thoughts > 0 {
		b = append(b, `,"thoughtsTokenCount":`...)
		b = strconv.AppendInt(b, int64(thoughts), 10)
	}
	b = append(b, `,"totalTokenCount":`...)
	b = strconv.AppendInt(b, int64(p+completion+thoughts), 10)
	b = append(b, `,"promptTokensDetails":[{"modality":"TEXT","tokenCount":`...)
	b = strconv.AppendInt(b, int64(p-g.media.Media()), 10)
	for _, m := range []struct {
		name   string
		tokens int
	}{{"DOCUMENT", g.media.Document}, {"VIDEO", g.media.Video}, {"AUDIO", g.media.Audio}} {
		if m.tokens > 0 {
			b = append(b, `},{"modality":"`+m.name+`","tokenCount":`...)
			b = strconv.AppendInt(b, int64(m.tokens), 10)
		}
	}
	return append(b, "}]},"...)
}

// appendResponse appends a GenerateContentResponse whose candidates (one,
// or candidateCount alike) say text (or call the tool), finished with finish
// ("" for not yet), with the usage of completion tokens so far (per candidate).
func (g *geminiWriter) appendResponse(b []byte, text string, call bool, finish string, completion int) []byte {
	b = append(b, `{"candidates":[`...)
	for k := range g.sc.choices() {
		if k > 0 {
			b = append(b, ',')
		}
		b = g.appendCandidate(b, k, text, call, finish)
	}
	b = append(b, `],`...)
	if g.image && finish != "" && !call {
		completion += geminiImageTokens
	}
	if g.sc.Fault != FaultNoUsage {
		b = g.appendUsage(b, completion)
	}
	b = append(b, `"modelVersion":`...)
	b = appendJSONString(b, g.model)
	b = append(b, `,"responseId":"fake-`...)
	b = append(b, g.sc.ID...)
	return append(b, `"}`...)
}

// appendCandidate appends candidate k of a response.
func (g *geminiWriter) appendCandidate(b []byte, k int, text string, call bool, finish string) []byte {
	b = append(b, `{"content":{"parts":[`...)
	if call {
		tc := g.sc.ToolCall
		b = append(b, `{"functionCall":{"name":`...)
		b = appendJSONString(b, tc.Name)
		b = append(b, `,"args":`...)
		b = append(b, tc.Arguments...)
		b = append(b, '}')
		if geminiThinks(g.model) {
			b = append(b, `,"thoughtSignature":`...)
			b = appendJSONString(b, base64.StdEncoding.EncodeToString([]byte(geminiSignaturePrefix+g.sc.ID)))
		}
		b = append(b, '}')
	} else {
		b = append(b, `{"text":`...)
		b = appendJSONString(b, text)
		b = append(b, '}')
		if g.image && finish != "" {
			b = append(b, `,{"inlineData":{"mimeType":"image/png","data":"`...)
			b = append(b, base64.StdEncoding.EncodeToString(makeImage(64, 64, "png", 1))...)
			b = append(b, `"}}`...)
		}
	}
	b = append(b, `],"role":"model"}`...)
	if finish != "" {
		b = append(b, `,"finishReason":"`...)
		b = append(b, finish...)
		b = append(b, '"')
		if g.grounded {
			b = append(b, `,"groundingMetadata":{"webSearchQueries":["fake query one","fake query two"],"groundingChunks":[{"web":{"uri":"https://search.example/1","title":"search.example"}}]}`...)
		}
	}
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(k), 10)
	return append(b, '}')
}

// reply writes a non-streamed GenerateContentResponse (indented, as Google's are).
func (g *geminiWriter) reply() {
	sc := g.sc
	if sc.Fault == FaultMidstreamError {
		writeGeminiStatusFault(g.w, http.StatusInternalServerError, g.model)
		return
	}
	compact := g.appendResponse(nil, sc.ReplyText(), sc.ToolCall != nil, geminiFinish(sc.Finish), sc.Tokens)
	var out bytes.Buffer
	_ = json.Indent(&out, compact, "", "  ")
	out.WriteByte('\n')
	b := out.Bytes()
	h := g.w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	writeWhole(g.w, sc.Fault, b, nil)
}

// send writes one chunk: an SSE event, or the next element of the array.
func (g *geminiWriter) send(chunk []byte) bool {
	var b []byte
	switch {
	case !g.array:
		b = append(append(append(b, "data: "...), chunk...), "\r\n\r\n"...)
	case g.sent == 0:
		b = append(append(b, '['), chunk...)
	default:
		b = append(append(b, ",\r\n"...), chunk...)
	}
	g.sent++
	return writeFlush(g.w, g.flusher, b)
}

// end closes the array of a stream without alt=sse.
func (g *geminiWriter) end() {
	if g.array {
		if g.sent == 0 {
			_, _ = g.w.Write([]byte("["))
		}
		_, _ = g.w.Write([]byte("]"))
	}
}

// geminiStream streams the reply: one chunk per word with the running usage,
// the last with finishReason; a tool call comes whole in one chunk.
func (s *Server) geminiStream(w http.ResponseWriter, r *http.Request, g *geminiWriter) {
	sc := g.sc
	h := w.Header()
	if g.array {
		h.Set("Content-Type", "application/json; charset=UTF-8")
	} else {
		h.Set("Content-Type", "text/event-stream")
	}
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	g.flusher, _ = w.(http.Flusher)
	ctx := r.Context()
	finish := geminiFinish(sc.Finish)

	interrupted := false
	switch sc.Fault {
	case FaultCut, FaultMalformed, FaultMidstreamError, FaultStall:
		interrupted = true
	}
	pace := s.Pacer()
	if pace != nil {
		defer pace.Stop()
	}
	var b []byte
	switch {
	case sc.ToolCall != nil:
		if !interrupted && !g.send(g.appendResponse(b[:0], "", true, finish, sc.Tokens)) {
			return
		}
	case sc.JSON != "": // the object asked for, whole
		if !interrupted && !g.send(g.appendResponse(b[:0], sc.JSON, false, finish, sc.Tokens)) {
			return
		}
	case sc.Tokens == 0:
		if !interrupted && !g.send(g.appendResponse(b[:0], "", false, finish, 0)) {
			return
		}
	default:
		stop := sc.StreamStop()
		for i := 0; i < stop; i++ {
			if !s.Pace(ctx, pace) {
				return
			}
			f := ""
			if i == sc.Tokens-1 && !interrupted {
				f = finish
			}
			b = g.appendResponse(b[:0], Token(i), false, f, i+1)
			if !g.send(b) {
				return
			}
		}
	}

	switch sc.Fault {
	case FaultCut:
		Abort() // drop the connection: no finishReason
	case FaultStall:
		s.Hold(ctx)
		return
	case FaultMalformed:
		g.send([]byte(`{"candidates":[{"content":{"parts":[{"text":"tok`))
		return
	case FaultMidstreamError:
		g.send([]byte(`{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}`))
		g.end()
		return
	}
	g.end()
}

// geminiBlocked answers a prompt the safety filters refused: HTTP 200 and
// no candidates, as the whole reply or as the only chunk of the stream.
func geminiBlocked(w http.ResponseWriter, model string, sc *Script, stream bool) {
	b := append([]byte(nil), `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":`...)
	b = strconv.AppendInt(b, int64(sc.PromptTokens), 10)
	b = append(b, `,"totalTokenCount":`...)
	b = strconv.AppendInt(b, int64(sc.PromptTokens), 10)
	b = append(b, `},"modelVersion":`...)
	b = appendJSONString(b, model)
	b = append(b, `,"responseId":"fake-`...)
	b = append(b, sc.ID...)
	b = append(b, `"}`...)
	h := w.Header()
	if stream {
		h.Set("Content-Type", "text/event-stream")
		b = append(append([]byte("data: "), b...), "\r\n\r\n"...)
	} else {
		h.Set("Content-Type", "application/json; charset=UTF-8")
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

const geminiRateLimitsURL = "https://ai.google.dev/gemini-api/docs/rate-limits"

// geminiQuotaMessage is Google's 429 text; a rate limit ends with when to retry.
func geminiQuotaMessage(model string, retry bool) string {
	m := "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: " +
		geminiRateLimitsURL + ".\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: "
	if retry {
		return m + "10, model: " + model + "\nPlease retry in 2s."
	}
	return m + "0, model: " + model
}

// geminiQuotaDetails are the google.rpc details of a 429: QuotaFailure, Help
// and, for a passing rate limit, RetryInfo.
func geminiQuotaDetails(model, quotaID, retryDelay string) string {
	b := append([]byte(nil), `[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":`...)
	b = appendJSONString(b, quotaID)
	b = append(b, `,"quotaDimensions":{"location":"global","model":`...)
	b = appendJSONString(b, model)
	b = append(b, `}}]},{"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more about Gemini API quotas","url":"`...)
	b = append(b, geminiRateLimitsURL...)
	b = append(b, `"}]}`...)
	if retryDelay != "" {
		b = append(b, `,{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"`...)
		b = append(b, retryDelay...)
		b = append(b, `"}`...)
	}
	return string(append(b, ']'))
}

// geminiStatusNames are the google.rpc codes Google answers with, by HTTP status.
var geminiStatusNames = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL", 501: "NOT_IMPLEMENTED",
	503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

// writeGeminiStatusFault answers a numeric fault with the error Google sends for that status.
func writeGeminiStatusFault(w http.ResponseWriter, status int, model string) {
	name, ok := geminiStatusNames[status]
	if !ok {
		name = "UNKNOWN"
		if status >= 500 {
			name = "INTERNAL"
		}
	}
	msg, details := http.StatusText(status), ""
	switch status {
	case 400:
		msg = "The input token count exceeds the maximum number of tokens allowed 1048576."
	case 401:
		msg = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
	case 403:
		msg = "The caller does not have permission"
	case 404:
		msg = "models/" + model + " is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods."
	case 429:
		msg = geminiQuotaMessage(model, true)
		details = geminiQuotaDetails(model, "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "2s")
	case 500:
		msg = "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	case 503:
		msg = "The model is overloaded. Please try again later."
	case 504:
		msg = "Deadline expired before operation could complete."
	}
	writeGeminiError(w, status, name, msg, details)
}

// writeGeminiError writes Google's error body, indented as Google does;
// details, when set, is the JSON array of google.rpc details.
func writeGeminiError(w http.ResponseWriter, status int, name, msg, details string) {
	b := make([]byte, 0, 128+len(msg)+len(details))
	b = append(b, `{"error":{"code":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, name)
	if details != "" {
		b = append(b, `,"details":`...)
		b = append(b, details...)
	}
	b = append(b, "}}"...)
	var out bytes.Buffer
	_ = json.Indent(&out, b, "", "  ")
	out.WriteByte('\n')
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("Content-Length", strconv.Itoa(out.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(out.Bytes())
}

// geminiToolConfig reads toolConfig.functionCallingConfig: NONE offers no
// function, ANY forces a call (of the one allowed function when it names
// one), with arguments that satisfy its declaration.
func geminiToolConfig(req *geminiRequest, ask *Ask) string {
	if req.ToolConfig == nil || req.ToolConfig.FunctionCallingConfig == nil {
		return ""
	}
	fc := req.ToolConfig.FunctionCallingConfig
	switch fc.Mode {
	case "", "AUTO", "MODE_UNSPECIFIED", "VALIDATED":
		return ""
	case "NONE":
		ask.Tools = nil
		return ""
	case "ANY":
	default:
		return "Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), \"" + fc.Mode + "\""
	}
	if len(fc.AllowedFunctionNames) > 0 {
		if !slices.Contains(ask.Tools, fc.AllowedFunctionNames[0]) {
			return "* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: the function " + fc.AllowedFunctionNames[0] + " is not declared\n"
		}
		ask.Tools = []string{fc.AllowedFunctionNames[0]}
	}
	if len(ask.Tools) == 0 {
		return ""
	}
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			if d.Name == ask.Tools[0] {
				schema := d.ParametersJSONSchema
				if len(schema) == 0 {
					schema = d.Parameters
				}
				ask.ToolArguments = forcedArguments(schema)
				return ""
			}
		}
	}
	return ""
}
