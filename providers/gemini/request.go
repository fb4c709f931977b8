package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/partjson"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// maxStopSequences is how many stop sequences Gemini takes.
const maxStopSequences = 5

// sigSep joins a synthesized tool call id and the thoughtSignature of the
// functionCall part it stands for: Gemini 3 refuses a conversation whose
// function calls come back without their signatures, and OpenAI's protocol
// has no other field that a client echoes back verbatim.
const sigSep = "__thought__"

// skipSignature is the value Google documents for a function call whose
// signature is unknown (a conversation begun on another model): Gemini 3
// then skips the validation instead of refusing the request.
const skipSignature = "skip_thought_signature_validator"

// clientMessage is one OpenAI message.
type clientMessage struct {
	Role         string           `json:"role"`
	Content      json.RawMessage  `json:"content"`
	Name         string           `json:"name"`
	ToolCallID   string           `json:"tool_call_id"`
	ToolCalls    []clientToolCall `json:"tool_calls"`
	FunctionCall *clientFunction  `json:"function_call"` // the deprecated spelling
}

type clientToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function clientFunction `json:"function"`
}

type clientFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON string holding an object (some clients send the object)
}

// clientPart is one part of an OpenAI content array.
type clientPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Refusal  string          `json:"refusal"`
	ImageURL json.RawMessage `json:"image_url"` // {"url","detail"} or, from some clients, the URL string
	Audio    *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
	File *struct {
		FileData string `json:"file_data"`
		FileID   string `json:"file_id"`
		Filename string `json:"filename"`
	} `json:"file"`
}

type clientTool struct {
	Type     string             `json:"type"`
	Function *clientFunctionDef `json:"function"`
}

type clientFunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// buildBody translates the client's OpenAI request into a generateContent
// body. Streaming is chosen by the URL, so one body serves both calls.
func buildBody(req *shlyuz.UpstreamRequest) ([]byte, *shlyuz.Error) {
	var w wireRequest
	if err := translateMessages(req, &w); err != nil {
		return nil, err
	}
	if err := translateTools(req.Fields, &w); err != nil {
		return nil, err
	}
	gc, err := translateGeneration(req)
	if err != nil {
		return nil, err
	}
	if !gc.empty() {
		w.GenerationConfig = gc
	}
	b, merr := plainjson.Marshal(&w)
	if merr != nil {
		return nil, shlyuz.ErrInvalidValue("messages", "The request cannot be translated for the upstream: %v", merr)
	}
	return b, nil
}

// present is a field the client sent with a non-null value.
func present(fields map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	v, ok := fields[name]
	if !ok || len(v) == 0 || isNull(v) {
		return nil, false
	}
	return v, true
}

func isNull(v []byte) bool { return string(bytes.TrimSpace(v)) == "null" }

// decodeField decodes an optional field; a value of the wrong type is the client's error.
func decodeField(fields map[string]json.RawMessage, name string, dst any, what string) (bool, *shlyuz.Error) {
	v, ok := present(fields, name)
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return false, shlyuz.ErrInvalidValue(name, "The field %q must be %s.", name, what)
	}
	return true, nil
}

// turns collects contents, merging consecutive messages of one role into one
// turn (Gemini wants user and model to alternate; the results of parallel
// tool calls form one turn). Tool results are never merged with user text:
// Gemini matches a function-response turn to the call turn before it.
type turns struct {
	contents  []content
	responses []bool // contents[i] is a function-response turn
}

func (t *turns) add(role string, parts []part, responses bool) {
	if len(parts) == 0 {
		return
	}
	if n := len(t.contents); n > 0 && t.contents[n-1].Role == role && t.responses[n-1] == responses {
		t.contents[n-1].Parts = append(t.contents[n-1].Parts, parts...)
		return
	}
	t.contents = append(t.contents, content{Role: role, Parts: parts})
	t.responses = append(t.responses, responses)
}

func translateMessages(req *shlyuz.UpstreamRequest, w *wireRequest) *shlyuz.Error {
	raw, ok := present(req.Fields, "messages")
	if !ok {
		return shlyuz.ErrMissingField("messages")
	}
	var msgs []clientMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return shlyuz.ErrInvalidValue("messages", "The field \"messages\" must be an array of message objects.")
	}
	var (
		sys   []part
		t     turns
		names = map[string]string{} // tool call id → function name
	)
	for i := range msgs {
		m := &msgs[i]
		param := "messages[" + strconv.Itoa(i) + "]"
		switch m.Role {
		case "system", "developer":
			parts, err := contentParts(m.Content, param, false)
			if err != nil {
				return err
			}
			sys = append(sys, parts...)
		case "user":
			parts, err := contentParts(m.Content, param, true)
			if err != nil {
				return err
			}
			t.add("user", parts, false)
		case "assistant":
			parts, err := contentParts(m.Content, param, false)
			if err != nil {
				return err
			}
			for j, tc := range m.ToolCalls {
				if tc.Function.Name == "" {
					return shlyuz.ErrInvalidValue(param+".tool_calls["+strconv.Itoa(j)+"].function.name", "A tool call has no function name.")
				}
				p, err := callPart(tc.Function, tc.ID, param+".tool_calls["+strconv.Itoa(j)+"].function.arguments")
				if err != nil {
					return err
				}
				if tc.ID != "" {
					names[tc.ID] = tc.Function.Name
				}
				parts = append(parts, p)
			}
			if fc := m.FunctionCall; fc != nil && fc.Name != "" {
				p, err := callPart(*fc, "", param+".function_call.arguments")
				if err != nil {
					return err
				}
				parts = append(parts, p)
			}
			t.add("model", parts, false)
		case "tool", "function":
			name := names[m.ToolCallID]
			if name == "" {
				name = m.Name // the deprecated function role names its function
			}
			if name == "" {
				return shlyuz.ErrInvalidValue(param+".tool_call_id",
					"The tool message's tool_call_id %q matches no tool call of an earlier assistant message.", m.ToolCallID)
			}
			resp, err := toolResponse(m.Content, param+".content")
			if err != nil {
				return err
			}
			t.add("user", []part{{FunctionResponse: &functionResponse{Name: name, Response: resp}}}, true)
		default:
			return shlyuz.ErrInvalidValue(param+".role", "The message role %q is not supported.", m.Role)
		}
	}
	if len(t.contents) == 0 {
		return shlyuz.ErrInvalidValue("messages", "The request has no user or assistant message with content; the upstream needs at least one.")
	}
	if signaturesRequired(req.UpstreamModel) {
		for i := range t.contents {
			c := &t.contents[i]
			if c.Role != "model" {
				continue
			}
			for j := range c.Parts {
				if c.Parts[j].FunctionCall != nil {
					if c.Parts[j].ThoughtSignature == "" {
						c.Parts[j].ThoughtSignature = skipSignature
					}
					break // only a step's first call carries one
				}
			}
		}
	}
	w.Contents = t.contents
	if len(sys) > 0 {
		w.SystemInstruction = &content{Parts: sys}
	}
	return nil
}

// signaturesRequired reports whether the model validates thought signatures
// on function calls: "gemini-<major>…" with a major version of 3 or more
// (1.x and 2.x do not; aliases such as "gemini-flash-latest" are not guessed).
func signaturesRequired(model string) bool {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(model, "models/"), "gemini-")
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

// contentParts translates a message's content: a string or an array of
// parts. Only a user message may carry media.
func contentParts(raw json.RawMessage, param string, media bool) ([]part, *shlyuz.Error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, shlyuz.ErrInvalidValue(param+".content", "The message content is not a valid string.")
		}
		if s == "" {
			return nil, nil
		}
		return []part{{Text: s}}, nil
	case '[':
	default:
		return nil, shlyuz.ErrInvalidValue(param+".content", "The message content must be a string or an array of parts.")
	}
	var cps []clientPart
	if err := json.Unmarshal(raw, &cps); err != nil {
		return nil, shlyuz.ErrInvalidValue(param+".content", "The message content must be a string or an array of parts.")
	}
	parts := make([]part, 0, len(cps))
	for j := range cps {
		cp := &cps[j]
		pp := param + ".content[" + strconv.Itoa(j) + "]"
		switch cp.Type {
		case "text", "input_text":
			if cp.Text != "" {
				parts = append(parts, part{Text: cp.Text})
			}
			continue
		case "refusal":
			if cp.Refusal != "" {
				parts = append(parts, part{Text: cp.Refusal})
			}
			continue
		}
		if !media {
			return nil, shlyuz.ErrInvalidValue(pp+".type", "A content part of type %q is only allowed in a user message.", cp.Type)
		}
		p, err := mediaPart(cp, pp)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// mediaPart translates an image, audio or file part.
func mediaPart(cp *clientPart, pp string) (part, *shlyuz.Error) {
	switch cp.Type {
	case "image_url":
		u := partjson.URL(cp.ImageURL)
		if u == "" {
			return part{}, shlyuz.ErrInvalidValue(pp+".image_url.url", "The image part has no URL.")
		}
		if strings.HasPrefix(u, "data:") {
			b, err := dataURL(u, "image/jpeg")
			if err != nil {
				return part{}, shlyuz.ErrInvalidValue(pp+".image_url.url", "The image data URL is not valid: %s.", err.msg)
			}
			return part{InlineData: b}, nil
		}
		pu, perr := url.Parse(u)
		if perr != nil || pu.Scheme == "" {
			return part{}, shlyuz.ErrInvalidValue(pp+".image_url.url", "The image URL is neither a data URL nor an absolute URL.")
		}
		return part{FileData: &fileData{MimeType: guessImageType(pu), FileURI: u}}, nil
	case "input_audio":
		if cp.Audio == nil || cp.Audio.Data == "" {
			return part{}, shlyuz.ErrInvalidValue(pp+".input_audio.data", "The audio part has no data.")
		}
		mt := "audio/" + strings.ToLower(cp.Audio.Format)
		switch strings.ToLower(cp.Audio.Format) {
		case "":
			mt = "audio/wav"
		case "mp3":
			mt = "audio/mp3"
		}
		return part{InlineData: &blob{MimeType: mt, Data: cp.Audio.Data}}, nil
	case "file":
		if cp.File == nil || cp.File.FileData == "" {
			return part{}, shlyuz.ErrInvalidValue(pp+".file", "A file part must carry file_data as a data URL; file ids are not supported by this upstream.")
		}
		fd := cp.File.FileData
		if !strings.HasPrefix(fd, "data:") {
			fd = "data:application/pdf;base64," + fd // OpenAI's file_data is sometimes bare base64 of a PDF
		}
		b, err := dataURL(fd, "application/pdf")
		if err != nil {
			return part{}, shlyuz.ErrInvalidValue(pp+".file.file_data", "The file data URL is not valid: %s.", err.msg)
		}
		return part{InlineData: b}, nil
	}
	return part{}, shlyuz.ErrInvalidValue(pp+".type", "The content part type %q is not supported by this upstream.", cp.Type)
}

type dataURLError struct{ msg string }

// dataURL decodes "data:[<mediatype>][;base64],<data>" into a blob with base64 data.
func dataURL(u, defaultType string) (*blob, *dataURLError) {
	rest := strings.TrimPrefix(u, "data:")
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, &dataURLError{"it has no comma"}
	}
	params := strings.Split(meta, ";")
	mt := strings.ToLower(strings.TrimSpace(params[0]))
	isBase64 := false
	for _, p := range params[1:] {
		if strings.EqualFold(strings.TrimSpace(p), "base64") {
			isBase64 = true
		}
	}
	if mt == "" {
		mt = defaultType
	}
	if isBase64 {
		data = strings.TrimSpace(data)
		if data == "" {
			return nil, &dataURLError{"it has no data"}
		}
		return &blob{MimeType: mt, Data: data}, nil
	}
	dec, err := url.PathUnescape(data)
	if err != nil {
		return nil, &dataURLError{"its data is not percent-encoded correctly"}
	}
	if dec == "" {
		return nil, &dataURLError{"it has no data"}
	}
	return &blob{MimeType: mt, Data: base64.StdEncoding.EncodeToString([]byte(dec))}, nil
}

// guessImageType guesses an image's media type from its URL's extension.
func guessImageType(u *url.URL) string {
	switch strings.ToLower(path.Ext(u.Path)) {
	case ".png":
		return "image/png"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	case ".heic":
		return "image/heic"
	case ".heif":
		return "image/heif"
	case ".bmp":
		return "image/bmp"
	}
	return "image/jpeg"
}

// callPart turns an assistant's tool call back into a functionCall part,
// restoring the thought signature carried in its id.
func callPart(f clientFunction, id, param string) (part, *shlyuz.Error) {
	args, err := callArguments(f.Arguments)
	if err != nil {
		return part{}, shlyuz.ErrInvalidValue(param, "The tool call's arguments must be a JSON object (as a string).")
	}
	p := part{FunctionCall: &functionCall{Name: f.Name, Args: args}}
	if _, sig, ok := strings.Cut(id, sigSep); ok && sig != "" {
		p.ThoughtSignature = sig
	}
	return p, nil
}

// callArguments reads OpenAI's arguments (a string holding a JSON object, or
// the object itself) as a JSON object.
func callArguments(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || isNull(raw) {
		return json.RawMessage(`{}`), nil
	}
	obj := raw
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return json.RawMessage(`{}`), nil
		}
		obj = json.RawMessage(s)
	}
	obj = bytes.TrimSpace(obj)
	if len(obj) == 0 || obj[0] != '{' || !json.Valid(obj) {
		return nil, errNotObject
	}
	return obj, nil
}

var errNotObject = errors.New("not a JSON object")

// toolResponse turns a tool message's content into functionResponse.response,
// which must be an object: a JSON object stays as it is, any other JSON value
// or plain text becomes {"result": …}.
func toolResponse(raw json.RawMessage, param string) (json.RawMessage, *shlyuz.Error) {
	text, ok := plainText(raw)
	if !ok {
		return nil, shlyuz.ErrInvalidValue(param, "A tool message's content must be a string or an array of text parts.")
	}
	t := strings.TrimSpace(text)
	if t != "" && json.Valid([]byte(t)) {
		if t[0] == '{' {
			return json.RawMessage(t), nil
		}
		return json.RawMessage(`{"result":` + t + `}`), nil
	}
	return append(plainjson.AppendString([]byte(`{"result":`), text), '}'), nil
}

// plainText joins the text of a content (a string or text parts).
func plainText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || isNull(raw) {
		return "", true
	}
	if raw[0] == '"' {
		var s string
		return s, json.Unmarshal(raw, &s) == nil
	}
	var cps []clientPart
	if json.Unmarshal(raw, &cps) != nil {
		return "", false
	}
	var b strings.Builder
	for _, cp := range cps {
		if cp.Type == "text" || cp.Type == "input_text" {
			b.WriteString(cp.Text)
		}
	}
	return b.String(), true
}

func translateTools(fields map[string]json.RawMessage, w *wireRequest) *shlyuz.Error {
	var tools []clientTool
	if _, err := decodeField(fields, "tools", &tools, "an array of tools"); err != nil {
		return err
	}
	choiceField := "tool_choice"
	if _, ok := present(fields, "tools"); !ok {
		// The deprecated spelling: functions and function_call.
		var fns []clientFunctionDef
		if _, err := decodeField(fields, "functions", &fns, "an array of functions"); err != nil {
			return err
		}
		for i := range fns {
			tools = append(tools, clientTool{Type: "function", Function: &fns[i]})
		}
		choiceField = "function_call"
	}
	var decls []functionDeclaration
	for i, t := range tools {
		param := "tools[" + strconv.Itoa(i) + "]"
		if t.Type != "" && t.Type != "function" {
			return shlyuz.ErrInvalidValue(param+".type", "The tool type %q is not supported by this upstream; only function tools are.", t.Type)
		}
		if t.Function == nil || t.Function.Name == "" {
			return shlyuz.ErrInvalidValue(param+".function.name", "A function tool needs a name.")
		}
		d := functionDeclaration{Name: t.Function.Name, Description: t.Function.Description}
		if ps := bytes.TrimSpace(t.Function.Parameters); len(ps) > 0 && !isNull(ps) {
			var schema any
			if err := json.Unmarshal(ps, &schema); err != nil {
				return shlyuz.ErrInvalidValue(param+".function.parameters", "The parameters of a function tool must be a JSON Schema object.")
			}
			obj, ok := schema.(map[string]any)
			if !ok {
				return shlyuz.ErrInvalidValue(param+".function.parameters", "The parameters of a function tool must be a JSON Schema object.")
			}
			switch {
			case noParameters(obj):
				// Gemini refuses an OBJECT schema without properties; a function without parameters has none.
			case fitsSchema(obj):
				d.Parameters = json.RawMessage(ps)
			default:
				d.ParametersJSONSchema = json.RawMessage(ps)
			}
		}
		decls = append(decls, d)
	}
	if len(decls) > 0 {
		w.Tools = []tool{{FunctionDeclarations: decls}}
	}

	raw, ok := present(fields, choiceField)
	if !ok || len(decls) == 0 {
		return nil
	}
	var cfg functionCallingConfig
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		switch s {
		case "auto":
			cfg.Mode = "AUTO"
		case "none":
			cfg.Mode = "NONE"
		case "required":
			cfg.Mode = "ANY"
		default:
			return shlyuz.ErrInvalidValue(choiceField, "The %s %q is not one of auto, none, required.", choiceField, s)
		}
	} else {
		var o struct {
			Type     string `json:"type"`
			Name     string `json:"name"` // function_call: {"name": …}
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &o); err != nil || (o.Function.Name == "" && o.Name == "") {
			return shlyuz.ErrInvalidValue(choiceField, `The %s must be "auto", "none", "required" or {"type":"function","function":{"name":…}}.`, choiceField)
		}
		name := o.Function.Name
		if name == "" {
			name = o.Name
		}
		cfg.Mode = "ANY"
		cfg.AllowedFunctionNames = []string{name}
	}
	w.ToolConfig = &toolConfig{FunctionCallingConfig: cfg}
	return nil
}

// noParameters is an object schema that declares no properties.
func noParameters(s map[string]any) bool {
	if t, _ := s["type"].(string); t != "object" && t != "" {
		return false
	}
	props, has := s["properties"]
	if !has {
		_, any1 := s["anyOf"]
		return !any1
	}
	m, ok := props.(map[string]any)
	return ok && len(m) == 0
}

// schemaKeys are the members of Gemini's Schema (an OpenAPI 3.0 subset).
var schemaKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
	"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
	"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "example": true,
	"anyOf": true, "propertyOrdering": true, "default": true, "items": true, "minimum": true, "maximum": true,
}

// fitsSchema reports whether a JSON Schema is also a valid Gemini Schema:
// only its members, one type name, string enums, and the same for every
// nested schema.
func fitsSchema(s map[string]any) bool {
	for k, v := range s {
		if !schemaKeys[k] {
			return false
		}
		switch k {
		case "type":
			if _, ok := v.(string); !ok {
				return false
			}
		case "enum":
			vs, ok := v.([]any)
			if !ok {
				return false
			}
			for _, e := range vs {
				if _, ok := e.(string); !ok {
					return false
				}
			}
		case "items":
			m, ok := v.(map[string]any)
			if !ok || !fitsSchema(m) {
				return false
			}
		case "properties":
			m, ok := v.(map[string]any)
			if !ok {
				return false
			}
			for _, p := range m {
				pm, ok := p.(map[string]any)
				if !ok || !fitsSchema(pm) {
					return false
				}
			}
		case "anyOf":
			vs, ok := v.([]any)
			if !ok {
				return false
			}
			for _, e := range vs {
				m, ok := e.(map[string]any)
				if !ok || !fitsSchema(m) {
					return false
				}
			}
		}
	}
	return true
}

func translateGeneration(req *shlyuz.UpstreamRequest) (*generationConfig, *shlyuz.Error) {
	f := req.Fields
	gc := &generationConfig{MaxOutputTokens: req.MaxTokens}
	if gc.MaxOutputTokens <= 0 {
		gc.MaxOutputTokens = 0
		for _, name := range []string{"max_completion_tokens", "max_tokens"} {
			var n int64
			ok, err := decodeField(f, name, &n, "a positive integer")
			if err != nil {
				return nil, err
			}
			if ok {
				if n <= 0 {
					return nil, shlyuz.ErrInvalidValue(name, "The field %q must be a positive integer.", name)
				}
				gc.MaxOutputTokens = n
				break
			}
		}
	}

	var modalities []string
	if ok, err := decodeField(f, "modalities", &modalities, "an array of strings"); err != nil {
		return nil, err
	} else if ok && slices.Contains(modalities, "image") {
		gc.ResponseModalities = []string{"IMAGE"}
		if slices.Contains(modalities, "text") {
			gc.ResponseModalities = []string{"TEXT", "IMAGE"}
		}
	}
	var ic struct {
		AspectRatio string `json:"aspect_ratio"`
		ImageSize   string `json:"image_size"`
	}
	if ok, err := decodeField(f, "image_config", &ic, "an object with aspect_ratio and image_size"); err != nil {
		return nil, err
	} else if ok && (ic.AspectRatio != "" || ic.ImageSize != "") {
		gc.ImageConfig = &imageConfig{AspectRatio: ic.AspectRatio, ImageSize: ic.ImageSize}
	}

	var n int64
	if ok, err := decodeField(f, "n", &n, "an integer"); err != nil {
		return nil, err
	} else if ok && (n < 1 || n > maxCandidates) {
		return nil, shlyuz.ErrInvalidValue("n", "This upstream returns 1 to %d choices per request (candidateCount); n must be in that range.", maxCandidates)
	} else if n > 1 {
		gc.CandidateCount = n
	}

	var err *shlyuz.Error
	if gc.Temperature, err = number(f, "temperature", 0, 2); err != nil {
		return nil, err
	}
	if gc.TopP, err = number(f, "top_p", 0, 1); err != nil {
		return nil, err
	}
	if gc.PresencePenalty, err = number(f, "presence_penalty", -2, 2); err != nil {
		return nil, err
	}
	if gc.FrequencyPenalty, err = number(f, "frequency_penalty", -2, 2); err != nil {
		return nil, err
	}
	var topK int64
	if ok, err := decodeField(f, "top_k", &topK, "a positive integer"); err != nil {
		return nil, err
	} else if ok {
		if topK <= 0 {
			return nil, shlyuz.ErrInvalidValue("top_k", "The field \"top_k\" must be a positive integer.")
		}
		gc.TopK = &topK
	}

	var seed json.Number
	if ok, err := decodeField(f, "seed", &seed, "an integer"); err != nil {
		return nil, err
	} else if ok {
		s, perr := strconv.ParseInt(seed.String(), 10, 64)
		if perr != nil {
			return nil, shlyuz.ErrInvalidValue("seed", "The field \"seed\" must be an integer.")
		}
		if s > math.MaxInt32 || s < math.MinInt32 {
			// Gemini's seed is 32 bits; fold a larger one deterministically.
			s = int64(int32(uint32(s) ^ uint32(uint64(s)>>32)))
		}
		gc.Seed = &s
	}

	if raw, ok := present(f, "stop"); ok {
		var stops []string
		if raw[0] == '"' {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return nil, shlyuz.ErrInvalidValue("stop", "The field \"stop\" must be a string or an array of strings.")
			}
			stops = []string{s}
		} else if json.Unmarshal(raw, &stops) != nil {
			return nil, shlyuz.ErrInvalidValue("stop", "The field \"stop\" must be a string or an array of strings.")
		}
		for _, s := range stops {
			if s != "" {
				gc.StopSequences = append(gc.StopSequences, s)
			}
		}
		if len(gc.StopSequences) > maxStopSequences {
			return nil, shlyuz.ErrInvalidValue("stop", "This upstream takes at most %d stop sequences; the request has %d.", maxStopSequences, len(gc.StopSequences))
		}
	}

	if err := translateThinking(f, gc); err != nil {
		return nil, err
	}

	var rf struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if ok, err := decodeField(f, "response_format", &rf, `an object such as {"type":"json_object"}`); err != nil {
		return nil, err
	} else if ok {
		switch rf.Type {
		case "", "text":
		case "json_object":
			gc.ResponseMimeType = "application/json"
		case "json_schema":
			gc.ResponseMimeType = "application/json"
			if rf.JSONSchema != nil && len(rf.JSONSchema.Schema) > 0 && !isNull(rf.JSONSchema.Schema) {
				gc.ResponseJSONSchema = rf.JSONSchema.Schema
			}
		default:
			return nil, shlyuz.ErrInvalidValue("response_format.type", "The response_format type %q is not supported.", rf.Type)
		}
	}
	return gc, nil
}

// number reads an optional number field within [lo, hi].
func number(f map[string]json.RawMessage, name string, lo, hi float64) (*float64, *shlyuz.Error) {
	var v float64
	ok, err := decodeField(f, name, &v, "a number")
	if err != nil || !ok {
		return nil, err
	}
	if v < lo || v > hi || math.IsNaN(v) {
		return nil, shlyuz.ErrInvalidValue(name, "The field %q must be between %g and %g.", name, lo, hi)
	}
	return &v, nil
}
