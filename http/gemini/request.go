package gemini

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/tokens"
)

// generateRequest is a GenerateContentRequest as the gateway reads it
// (camelCase, as Google's SDKs send it). The body itself goes unchanged to a
// Gemini upstream (shlyuz.NativeRequest); for every other upstream it is put
// in OpenAI's chat shape (chatFields).
type generateRequest struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction"`
	Tools             []tool            `json:"tools"`
	ToolConfig        *toolConfig       `json:"toolConfig"`
	GenerationConfig  *generationConfig `json:"generationConfig"`
}

type content struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

type part struct {
	Text       *string `json:"text"`
	Thought    bool    `json:"thought"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	} `json:"fileData"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	VideoMetadata *struct {
		FPS *float64 `json:"fps"`
	} `json:"videoMetadata"`
	MediaResolution json.RawMessage `json:"mediaResolution"`
}

type tool struct {
	FunctionDeclarations []struct {
		Name                 string          `json:"name"`
		Description          string          `json:"description"`
		Parameters           json.RawMessage `json:"parameters"`
		ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
	} `json:"functionDeclarations"`
	// Google's own tools (googleSearch, codeExecution, urlContext, …): only a
	// Gemini upstream runs them.
	Other map[string]json.RawMessage `json:"-"`
}

type toolConfig struct {
	FunctionCallingConfig *struct {
		Mode                 string   `json:"mode"` // AUTO, ANY, NONE, VALIDATED
		AllowedFunctionNames []string `json:"allowedFunctionNames"`
	} `json:"functionCallingConfig"`
}

type generationConfig struct {
	MaxOutputTokens    *int64          `json:"maxOutputTokens"`
	CandidateCount     *int64          `json:"candidateCount"`
	Temperature        *float64        `json:"temperature"`
	TopP               *float64        `json:"topP"`
	TopK               *int64          `json:"topK"`
	StopSequences      []string        `json:"stopSequences"`
	Seed               *int64          `json:"seed"`
	PresencePenalty    *float64        `json:"presencePenalty"`
	FrequencyPenalty   *float64        `json:"frequencyPenalty"`
	ResponseMimeType   string          `json:"responseMimeType"`
	ResponseSchema     json.RawMessage `json:"responseSchema"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	MediaResolution    string          `json:"mediaResolution"`
	ThinkingConfig     *struct {
		IncludeThoughts bool   `json:"includeThoughts"`
		ThinkingBudget  *int64 `json:"thinkingBudget"`
		ThinkingLevel   string `json:"thinkingLevel"`
	} `json:"thinkingConfig"`
}

// maxCandidates is the most candidates Google's generateContent returns
// (generationConfig.candidateCount, 1 to 8; 0 is the default, one).
const maxCandidates = 8

// modelName is the catalog's name for a model as a Gemini client puts it in
// the URL: "gemini-2.5-flash", "models/gemini-2.5-flash" or a catalog id
// ("google/gemini-2.5-flash").
func modelName(m string) string { return strings.TrimPrefix(m, "models/") }

// ParseGenerate reads a generateContent request for model into a chat call:
// the body kept for a Gemini upstream, its chat form for the others. A count
// only (countTokens) may wrap it in generateContentRequest.
func ParseGenerate(body []byte, model string, stream bool) (*actors.ChatCall, *shlyuz.Error) {
	top, serr := api.SplitObject(body)
	if serr != nil {
		return nil, shlyuz.ErrInvalidJSON(serr.Error())
	}
	if top == nil {
		return nil, shlyuz.ErrInvalidJSON("the body must be a JSON object")
	}
	var r generateRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, shlyuz.ErrInvalidValue("", "The request does not have the Gemini API's GenerateContentRequest shape: %s", err.Error())
	}
	if len(r.Contents) == 0 {
		return nil, shlyuz.ErrMissingField("contents")
	}
	if raw := top["tools"]; len(raw) > 0 {
		var tools []map[string]json.RawMessage
		_ = json.Unmarshal(raw, &tools)
		for i := range tools {
			if i < len(r.Tools) {
				delete(tools[i], "functionDeclarations")
				r.Tools[i].Other = tools[i]
			}
		}
	}
	fields, unfit, err := chatFields(&r, model, stream)
	if err != nil {
		return nil, err
	}
	est, eerr := tokens.EstimatePrompt(fields["messages"])
	if eerr != nil {
		return nil, shlyuz.ErrInvalidValue("contents", "The contents are not valid: %s", eerr.Error())
	}
	if err := api.WithMedia(&est, fields["messages"], "contents"); err != nil {
		return nil, err
	}
	if err := mediaSettings(&r); err != nil {
		return nil, err
	}
	// Definitions are prompt too: as the client wrote them (a Gemini upstream gets them so) or as
	// chat carries them to the others, whichever is larger.
	var schema json.RawMessage
	if g := r.GenerationConfig; g != nil {
		schema = g.ResponseJSONSchema
		if len(schema) == 0 {
			schema = g.ResponseSchema
		}
	}
	est = api.WithDefinitions(est, tokens.EstimateDefinitions(top["tools"], top["toolConfig"], schema),
		tokens.EstimateDefinitions(fields["tools"], fields["response_format"]))
	call := &actors.ChatCall{
		Fields: fields, Models: []string{model}, Stream: stream, Prompt: est, AllowFallbacks: true, Started: time.Now(),
		Native: &shlyuz.NativeRequest{Protocol: shlyuz.ProtocolGemini, Body: top, Unfit: unfit},
	}
	if call.WebSearches, err = api.GoogleToolFees(top["tools"]); err != nil { // grounding's fee: reserved, billed, or refused
		return nil, err
	}
	call.WebSearchField = "tools"
	if g := r.GenerationConfig; g != nil {
		if g.MaxOutputTokens != nil {
			if *g.MaxOutputTokens < 1 {
				return nil, shlyuz.ErrInvalidValue("generationConfig.maxOutputTokens", "generationConfig.maxOutputTokens must be at least 1.")
			}
			call.MaxTokens = *g.MaxOutputTokens
		}
		if c := g.CandidateCount; c != nil {
			if *c < 0 || *c > maxCandidates {
				return nil, shlyuz.ErrInvalidValue("generationConfig.candidateCount", "generationConfig.candidateCount must be between 1 and %d.", maxCandidates)
			}
			if *c > 1 {
				call.N = *c // every candidate is reserved for and billed
			}
		}
	}
	if err := api.ReadRouting(top, call); err != nil {
		return nil, err
	}
	if err := api.RefuseChatOnly(top); err != nil {
		return nil, err
	}
	api.WithoutRouting(top) // Google answers 400 "Unknown name" to them
	delete(top, "model")    // the URL names it
	return call, nil
}

// chatFields is the request in OpenAI's chat shape. unfit is set when the
// request holds what chat cannot carry (Google's own tools): only a Gemini
// upstream may then serve it.
func chatFields(r *generateRequest, model string, stream bool) (fields map[string]json.RawMessage, unfit, err *shlyuz.Error) {
	f := map[string]any{"model": model}
	var msgs []map[string]any
	if si := r.SystemInstruction; si != nil {
		if text := textOf(si.Parts); text != "" {
			msgs = append(msgs, map[string]any{"role": "system", "content": text})
		}
	}
	calls := &callIDs{}
	for i := range r.Contents {
		out, err := chatMessages(&r.Contents[i], i, calls)
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, out...)
	}
	f["messages"] = msgs
	if stream {
		f["stream"] = true
	}
	var tools []any
	for i, t := range r.Tools {
		for k := range t.Other {
			unfit = cmp.Or(unfit, shlyuz.ErrInvalidValue("tools", "tools[%d]: the tool %q is served by Google's own models only.", i, k))
		}
		for j, d := range t.FunctionDeclarations {
			if d.Name == "" {
				return nil, nil, shlyuz.ErrInvalidValue("tools", "tools[%d].functionDeclarations[%d]: a function needs a name.", i, j)
			}
			fn := map[string]any{"name": d.Name}
			if d.Description != "" {
				fn["description"] = d.Description
			}
			switch {
			case len(d.ParametersJSONSchema) > 0 && !api.IsNull(d.ParametersJSONSchema):
				fn["parameters"] = d.ParametersJSONSchema
			case len(d.Parameters) > 0 && !api.IsNull(d.Parameters):
				fn["parameters"] = jsonSchemaOf(d.Parameters)
			}
			tools = append(tools, map[string]any{"type": "function", "function": fn})
		}
	}
	if len(tools) > 0 {
		f["tools"] = tools
		if tc := r.ToolConfig; tc != nil && tc.FunctionCallingConfig != nil {
			fc := tc.FunctionCallingConfig
			switch strings.ToUpper(fc.Mode) {
			case "", "AUTO", "VALIDATED", "MODE_UNSPECIFIED":
			case "ANY":
				if len(fc.AllowedFunctionNames) == 1 {
					f["tool_choice"] = map[string]any{"type": "function", "function": map[string]string{"name": fc.AllowedFunctionNames[0]}}
				} else {
					f["tool_choice"] = "required"
				}
			case "NONE":
				f["tool_choice"] = "none"
			default:
				return nil, nil, shlyuz.ErrInvalidValue("toolConfig", "toolConfig.functionCallingConfig.mode is AUTO, ANY, NONE or VALIDATED, not %q.", fc.Mode)
			}
		}
	}
	if g := r.GenerationConfig; g != nil {
		generation(g, f)
	}
	if fields, err = api.EncodeFields(f, nil, nil); err != nil {
		return nil, nil, err
	}
	return fields, unfit, nil
}

// generation puts generationConfig's members in chat's terms.
func generation(g *generationConfig, f map[string]any) {
	if g.MaxOutputTokens != nil {
		f["max_tokens"] = *g.MaxOutputTokens
	}
	if g.CandidateCount != nil && *g.CandidateCount > 1 {
		f["n"] = *g.CandidateCount
	}
	api.Sampling{Temperature: g.Temperature, TopP: g.TopP, TopK: g.TopK, Stop: g.StopSequences}.Put(f)
	if g.Seed != nil {
		f["seed"] = *g.Seed
	}
	if g.PresencePenalty != nil {
		f["presence_penalty"] = *g.PresencePenalty
	}
	if g.FrequencyPenalty != nil {
		f["frequency_penalty"] = *g.FrequencyPenalty
	}
	if strings.EqualFold(g.ResponseMimeType, "application/json") {
		schema := g.ResponseJSONSchema
		if len(schema) == 0 || api.IsNull(schema) {
			if len(g.ResponseSchema) > 0 && !api.IsNull(g.ResponseSchema) {
				schema = jsonSchemaOf(g.ResponseSchema)
			}
		}
		if len(schema) > 0 && !api.IsNull(schema) {
			f["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "response", "schema": schema}}
		} else {
			f["response_format"] = map[string]string{"type": "json_object"}
		}
	}
	if th := g.ThinkingConfig; th != nil {
		reasoning := map[string]any{}
		switch {
		case th.ThinkingBudget != nil && *th.ThinkingBudget == 0:
			reasoning["enabled"] = false
		case th.ThinkingBudget != nil && *th.ThinkingBudget > 0:
			reasoning["max_tokens"] = *th.ThinkingBudget
		case th.ThinkingLevel != "":
			reasoning["effort"] = strings.ToLower(th.ThinkingLevel)
		}
		if !th.IncludeThoughts && len(reasoning) > 0 {
			reasoning["exclude"] = true
		}
		if len(reasoning) > 0 {
			f["reasoning"] = reasoning
		}
	}
}

// jsonSchemaOf is a Gemini Schema (an OpenAPI subset, types in capitals:
// "OBJECT", "STRING") as JSON Schema: the types in lower case, nullable as a
// type list; every other member is the same in both.
func jsonSchemaOf(raw json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, err := json.Marshal(lowerTypes(v, 0))
	if err != nil {
		return raw
	}
	return b
}

func lowerTypes(v any, depth int) any {
	if depth > 64 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if t, ok := e.(string); ok && k == "type" {
				x[k] = strings.ToLower(t)
				continue
			}
			x[k] = lowerTypes(e, depth+1)
		}
		if n, _ := x["nullable"].(bool); n {
			if t, ok := x["type"].(string); ok {
				x["type"] = []any{t, "null"}
			}
		}
		delete(x, "nullable")
		delete(x, "propertyOrdering")
	case []any:
		for i := range x {
			x[i] = lowerTypes(x[i], depth+1)
		}
	}
	return v
}

// textOf is the text of parts, thoughts left out.
func textOf(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil && !p.Thought {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}

// callIDs names the conversation's function calls for chat, which ties a
// tool's result to its call by id where Gemini ties them by name (and order).
type callIDs struct {
	n    int
	open map[string][]string // function name → ids of its calls not yet answered
}

func (c *callIDs) call(name, id string) string {
	c.n++
	if id == "" {
		id = "call_" + strconv.Itoa(c.n)
	}
	if c.open == nil {
		c.open = map[string][]string{}
	}
	c.open[name] = append(c.open[name], id)
	return id
}

func (c *callIDs) answer(name, id string) string {
	ids := c.open[name]
	if id != "" {
		for i, o := range ids {
			if o == id {
				c.open[name] = append(ids[:i:i], ids[i+1:]...)
				return id
			}
		}
		return id
	}
	if len(ids) == 0 {
		c.n++
		return "call_" + strconv.Itoa(c.n)
	}
	c.open[name] = ids[1:]
	return ids[0]
}

// chatMessages is one content as chat messages: a user content's function
// responses become tool messages ahead of what else it says; a model
// content's function calls become its tool_calls.
func chatMessages(c *content, i int, calls *callIDs) ([]map[string]any, *shlyuz.Error) {
	at := "contents[" + strconv.Itoa(i) + "]"
	switch c.Role {
	case "", "user", "function", "tool":
	case "model":
		return modelMessage(c, at, calls)
	default:
		return nil, shlyuz.ErrInvalidValue("contents", "%s.role is user or model, not %q.", at, c.Role)
	}
	var out []map[string]any
	parts := make([]map[string]any, 0, len(c.Parts))
	for j, p := range c.Parts {
		pat := at + ".parts[" + strconv.Itoa(j) + "]"
		switch {
		case p.FunctionResponse != nil:
			fr := p.FunctionResponse
			resp := fr.Response
			if len(resp) == 0 {
				resp = json.RawMessage("{}")
			}
			out = append(out, map[string]any{"role": "tool", "tool_call_id": calls.answer(fr.Name, fr.ID), "content": string(resp)})
		case p.Text != nil:
			if *p.Text != "" && !p.Thought {
				parts = append(parts, map[string]any{"type": "text", "text": *p.Text})
			}
		case p.InlineData != nil:
			parts = append(parts, mediaPart(p.InlineData.MimeType, "data:"+p.InlineData.MimeType+";base64,"+p.InlineData.Data, p.InlineData.Data))
		case p.FileData != nil:
			parts = append(parts, mediaPart(p.FileData.MimeType, p.FileData.FileURI, ""))
		case p.FunctionCall != nil:
			return nil, shlyuz.ErrInvalidValue("contents", "%s: a function call belongs in a model turn.", pat)
		}
	}
	if len(parts) > 0 {
		out = append(out, map[string]any{"role": "user", "content": parts})
	}
	return out, nil
}

// mediaPart is an inline or referenced file as a chat content part: an
// image, audio (inline only) or a file.
func mediaPart(mime, url, b64 string) map[string]any {
	switch {
	case strings.HasPrefix(mime, "image/"), mime == "" && !strings.HasPrefix(url, "data:"):
		return map[string]any{"type": "image_url", "image_url": map[string]string{"url": url}}
	case strings.HasPrefix(mime, "audio/") && b64 != "":
		return map[string]any{"type": "input_audio", "input_audio": map[string]string{"data": b64, "format": strings.TrimPrefix(mime, "audio/")}}
	}
	return map[string]any{"type": "file", "file": map[string]string{"filename": "file", "file_data": url}}
}

// modelMessage is a model content as an assistant message.
func modelMessage(c *content, at string, calls *callIDs) ([]map[string]any, *shlyuz.Error) {
	var text strings.Builder
	var tcs []map[string]any
	for j, p := range c.Parts {
		switch {
		case p.FunctionCall != nil:
			fc := p.FunctionCall
			args := fc.Args
			if len(args) == 0 || api.IsNull(args) {
				args = json.RawMessage("{}")
			}
			tcs = append(tcs, map[string]any{"id": calls.call(fc.Name, fc.ID), "type": "function",
				"function": map[string]any{"name": fc.Name, "arguments": string(args)}})
		case p.Text != nil:
			if !p.Thought { // another upstream cannot read Gemini's signed thoughts
				text.WriteString(*p.Text)
			}
		case p.FunctionResponse != nil:
			return nil, shlyuz.ErrInvalidValue("contents", "%s.parts[%d]: a function response belongs in a user turn.", at, j)
		}
	}
	m := map[string]any{"role": "assistant", "content": text.String()}
	if len(tcs) > 0 {
		m["tool_calls"] = tcs
		if text.Len() == 0 {
			m["content"] = nil
		}
	} else if text.Len() == 0 {
		return nil, nil
	}
	return []map[string]any{m}, nil
}
