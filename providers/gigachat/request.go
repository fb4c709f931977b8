package gigachat

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// The GigaChat v1 request, in the order its fields are written.
type gcRequest struct {
	Model             string          `json:"model"`
	Messages          []gcMessage     `json:"messages"`
	Functions         []gcFunction    `json:"functions,omitempty"`
	FunctionCall      json.RawMessage `json:"function_call,omitempty"`
	Temperature       json.RawMessage `json:"temperature,omitempty"`
	TopP              json.RawMessage `json:"top_p,omitempty"`
	N                 json.RawMessage `json:"n,omitempty"`
	MaxTokens         json.RawMessage `json:"max_tokens,omitempty"`
	RepetitionPenalty json.RawMessage `json:"repetition_penalty,omitempty"`
	UpdateInterval    json.RawMessage `json:"update_interval,omitempty"`
	ProfanityCheck    json.RawMessage `json:"profanity_check,omitempty"`
	ReasoningEffort   json.RawMessage `json:"reasoning_effort,omitempty"`
	Stream            bool            `json:"stream"`
}

type gcMessage struct {
	Role             string          `json:"role"`
	Content          string          `json:"content"`
	Name             string          `json:"name,omitempty"`
	FunctionCall     *gcFunctionCall `json:"function_call,omitempty"`
	FunctionsStateID string          `json:"functions_state_id,omitempty"`
	Attachments      []string        `json:"attachments,omitempty"`
}

type gcFunctionCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON object, not a string
}

type gcFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// The parts of OpenAI's request the translation reads.
type oaMessage struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	Name         string          `json:"name"`
	ToolCalls    []oaToolCall    `json:"tool_calls"`
	ToolCallID   string          `json:"tool_call_id"`
	FunctionCall *oaFunction     `json:"function_call"` // the deprecated functions API
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON string holding an object
}

type oaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type oaPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Refusal  string `json:"refusal"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// maxImages is GigaChat's limit of images in one request (one per message).
const maxImages = 10

// uploader stores an image with the upstream and says its file id.
type uploader func(ctx context.Context, img *image) (string, error)

// buildBody translates the client's OpenAI request into GigaChat's. Images
// are uploaded on the way (each distinct image once). Client fields GigaChat
// has no counterpart for (stop, seed, logprobs, response_format, user, …)
// are dropped; the stream argument, not req.Stream, decides streaming.
func buildBody(ctx context.Context, req *shlyuz.UpstreamRequest, stream bool, upload uploader) ([]byte, error) {
	f := req.Fields
	out := gcRequest{Model: req.UpstreamModel, Stream: stream}

	functions, err := translateTools(f)
	if err != nil {
		return nil, err
	}
	out.Functions = functions
	if len(functions) > 0 {
		if out.FunctionCall, err = translateToolChoice(f, functions); err != nil {
			return nil, err
		}
	} else if wantsImage(f) { // lets the model call its built-in text2image
		out.FunctionCall = json.RawMessage(`"auto"`)
	}

	raw, ok := f["messages"]
	if !ok || isNull(raw) {
		return nil, shlyuz.ErrMissingField("messages")
	}
	var msgs []oaMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, shlyuz.ErrInvalidValue("messages", "The messages are not a list of chat messages: %s", err.Error())
	}
	if len(msgs) == 0 {
		return nil, shlyuz.ErrInvalidValue("messages", "The messages list is empty.")
	}
	if out.Messages, err = translateMessages(ctx, msgs, upload); err != nil {
		return nil, err
	}

	for _, p := range []struct {
		dst  *json.RawMessage
		keys []string
	}{
		{&out.Temperature, []string{"temperature"}},
		{&out.TopP, []string{"top_p"}},
		{&out.N, []string{"n"}},
		{&out.RepetitionPenalty, []string{"repetition_penalty"}},
		{&out.UpdateInterval, []string{"update_interval"}},
		{&out.ProfanityCheck, []string{"profanity_check"}},
		{&out.ReasoningEffort, []string{"reasoning_effort"}},
		{&out.MaxTokens, []string{"max_tokens", "max_completion_tokens"}},
	} {
		for _, k := range p.keys {
			if v, ok := f[k]; ok && !isNull(v) {
				*p.dst = bytes.TrimSpace(v)
				break
			}
		}
	}
	if req.MaxTokens > 0 {
		out.MaxTokens = strconv.AppendInt(nil, req.MaxTokens, 10)
	}

	b, err := plainjson.Marshal(&out)
	if err != nil {
		// A raw value the client sent that is not JSON after all.
		return nil, shlyuz.ErrInvalidJSON(err.Error())
	}
	return b, nil
}

// translateTools turns OpenAI's tools (or the deprecated functions) into GigaChat's functions.
func translateTools(f map[string]json.RawMessage) ([]gcFunction, error) {
	if raw, ok := f["tools"]; ok && !isNull(raw) {
		var tools []oaTool
		if err := json.Unmarshal(raw, &tools); err != nil {
			return nil, shlyuz.ErrInvalidValue("tools", "The tools are not a list of tool objects: %s", err.Error())
		}
		out := make([]gcFunction, 0, len(tools))
		for i, t := range tools {
			if t.Type != "function" {
				return nil, shlyuz.ErrInvalidValue("tools", "GigaChat takes only function tools; tools[%d] has type %q.", i, t.Type)
			}
			if t.Function.Name == "" {
				return nil, shlyuz.ErrInvalidValue("tools", "tools[%d].function.name is missing.", i)
			}
			fn := gcFunction{Name: t.Function.Name, Description: t.Function.Description}
			if !isNull(t.Function.Parameters) {
				fn.Parameters = t.Function.Parameters
			}
			out = append(out, fn)
		}
		return out, nil
	}
	if raw, ok := f["functions"]; ok && !isNull(raw) {
		var fns []gcFunction
		if err := json.Unmarshal(raw, &fns); err != nil {
			return nil, shlyuz.ErrInvalidValue("functions", "The functions are not a list of function objects: %s", err.Error())
		}
		for i := range fns {
			if isNull(fns[i].Parameters) {
				fns[i].Parameters = nil
			}
		}
		return fns, nil
	}
	return nil, nil
}

// translateToolChoice turns tool_choice (or the deprecated function_call)
// into GigaChat's function_call: "auto", "none" or {"name":…}; "auto" when
// the client said nothing, as OpenAI defaults to when tools are given.
func translateToolChoice(f map[string]json.RawMessage, fns []gcFunction) (json.RawMessage, error) {
	param := "tool_choice"
	raw, ok := f[param]
	if !ok || isNull(raw) {
		param = "function_call"
		raw, ok = f[param]
	}
	if !ok || isNull(raw) {
		return json.RawMessage(`"auto"`), nil
	}
	raw = bytes.TrimSpace(raw)
	name := ""
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		switch s {
		case "auto", "none":
			return json.RawMessage(strconv.Quote(s)), nil
		case "required":
			if len(fns) != 1 {
				return nil, shlyuz.ErrInvalidValue(param, "GigaChat cannot be made to call some function of several; name the function in tool_choice, or offer only one.")
			}
			name = fns[0].Name
		default:
			return nil, shlyuz.ErrInvalidValue(param, "The %s %q is not one of auto, none, required or a named function.", param, s)
		}
	} else {
		var c struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &c) != nil {
			return nil, shlyuz.ErrInvalidValue(param, "The %s is not valid.", param)
		}
		name = c.Function.Name
		if name == "" {
			name = c.Name
		}
		if name == "" {
			return nil, shlyuz.ErrInvalidValue(param, "The %s names no function.", param)
		}
	}
	for _, fn := range fns {
		if fn.Name == name {
			return append(plainjson.AppendString([]byte(`{"name":`), name), '}'), nil
		}
	}
	return nil, shlyuz.ErrInvalidValue(param, "The %s names the function %q, which is not among the tools.", param, name)
}

// translateMessages turns OpenAI's messages into GigaChat's: the system and
// developer messages merged into one first system message; content parts
// flattened to text, with the image of a user message uploaded and attached;
// tool results as role "function" named after the call they answer. GigaChat
// has one function_call per assistant message, each followed by its result,
// so an assistant message with several tool calls becomes one assistant
// message per call, each placed right before the call's result (its text on
// the first).
func translateMessages(ctx context.Context, msgs []oaMessage, upload uploader) ([]gcMessage, error) {
	var system []string
	out := make([]gcMessage, 0, len(msgs)+1)
	callNames := map[string]string{}   // tool_call_id → function name
	pending := map[string]*gcMessage{} // calls of the last assistant message not placed yet, as messages
	var first *gcMessage               // the first of them
	holder := -1                       // out's index of that assistant message while it has no call placed
	uploaded := map[string]string{}    // image URL → file id, within this request
	images := 0

	// settle ends the turn of the last assistant message: if none of its
	// calls was answered, it carries its first call.
	settle := func() {
		if holder >= 0 && out[holder].FunctionCall == nil && first != nil {
			out[holder].FunctionCall, out[holder].FunctionsStateID = first.FunctionCall, first.FunctionsStateID
			for id, m := range pending {
				if m == first {
					delete(pending, id)
				}
			}
		}
		holder, first = -1, nil
	}

	for i, m := range msgs {
		param := "messages[" + strconv.Itoa(i) + "]"
		switch m.Role {
		case "system", "developer":
			text, err := textOf(m.Content, param, false)
			if err != nil {
				return nil, err
			}
			system = append(system, text)

		case "user":
			settle()
			text, urls, err := userContent(m.Content, param)
			if err != nil {
				return nil, err
			}
			gm := gcMessage{Role: "user", Content: text}
			if len(urls) > 1 {
				return nil, shlyuz.ErrInvalidValue(param+".content", "GigaChat takes one image per message; this message has %d.", len(urls))
			}
			for _, u := range urls {
				if images++; images > maxImages {
					return nil, shlyuz.ErrInvalidValue("messages", "GigaChat takes at most %d images in a request.", maxImages)
				}
				id, ok := uploaded[u]
				if !ok {
					img, err := parseImageURL(u, param+".content")
					if err != nil {
						return nil, err
					}
					if id, err = upload(ctx, img); err != nil {
						return nil, err
					}
					uploaded[u] = id
				}
				gm.Attachments = append(gm.Attachments, id)
			}
			out = append(out, gm)

		case "assistant":
			settle()
			text, err := textOf(m.Content, param, true)
			if err != nil {
				return nil, err
			}
			gm := gcMessage{Role: "assistant", Content: text}
			clear(pending)
			calls := m.ToolCalls
			if len(calls) == 0 && m.FunctionCall != nil {
				calls = []oaToolCall{{Type: "function", Function: *m.FunctionCall}}
			}
			placed := make([]*gcMessage, len(calls))
			withIDs := true
			for j, c := range calls {
				if c.Type != "" && c.Type != "function" {
					return nil, shlyuz.ErrInvalidValue(param+".tool_calls", "GigaChat takes only function calls; tool_calls[%d] has type %q.", j, c.Type)
				}
				if c.Function.Name == "" {
					return nil, shlyuz.ErrInvalidValue(param+".tool_calls", "tool_calls[%d].function.name is missing.", j)
				}
				fc, err := functionCall(c.Function, param+".tool_calls")
				if err != nil {
					return nil, err
				}
				placed[j] = &gcMessage{Role: "assistant", FunctionCall: fc, FunctionsStateID: stateOfCallID(c.ID)}
				if c.ID == "" {
					withIDs = false
				} else {
					callNames[c.ID] = c.Function.Name
					pending[c.ID] = placed[j]
				}
			}
			switch {
			case len(calls) == 0:
			case len(calls) == 1 || !withIDs:
				// One call (or calls that results cannot name): it rides on the message.
				gm.FunctionCall, gm.FunctionsStateID = placed[0].FunctionCall, placed[0].FunctionsStateID
				for id, pm := range pending {
					if pm == placed[0] {
						delete(pending, id)
					}
				}
			default:
				holder, first = len(out), placed[0]
			}
			out = append(out, gm)

		case "tool", "function":
			name := m.Name
			if m.Role == "tool" {
				n, ok := callNames[m.ToolCallID]
				if !ok && name == "" {
					return nil, shlyuz.ErrInvalidValue(param+".tool_call_id", "The tool message answers the call %q, which no earlier assistant message made.", m.ToolCallID)
				}
				if ok {
					name = n
				}
				if pm, ok := pending[m.ToolCallID]; ok {
					if holder >= 0 && holder == len(out)-1 && out[holder].FunctionCall == nil {
						out[holder].FunctionCall, out[holder].FunctionsStateID = pm.FunctionCall, pm.FunctionsStateID
					} else {
						out = append(out, *pm)
					}
					delete(pending, m.ToolCallID)
				}
			}
			text, err := textOf(m.Content, param, true)
			if err != nil {
				return nil, err
			}
			out = append(out, gcMessage{Role: "function", Name: name, Content: functionResult(text)})

		default:
			return nil, shlyuz.ErrInvalidValue(param+".role", "GigaChat has no role %q; use system, user, assistant or tool.", m.Role)
		}
	}
	settle()
	if len(system) > 0 {
		out = append(out, gcMessage{})
		copy(out[1:], out)
		out[0] = gcMessage{Role: "system", Content: strings.Join(system, "\n\n")}
	}
	return out, nil
}

// functionCall is an OpenAI call's function as GigaChat's function_call, its
// arguments a JSON object rather than a string holding one.
func functionCall(f oaFunction, param string) (*gcFunctionCall, error) {
	args := bytes.TrimSpace(f.Arguments)
	if len(args) > 0 && args[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) != nil {
			return nil, shlyuz.ErrInvalidValue(param, "The arguments of the call of %q are not valid.", f.Name)
		}
		args = bytes.TrimSpace([]byte(s))
	}
	if len(args) == 0 || isNull(args) {
		args = []byte("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return nil, shlyuz.ErrInvalidValue(param, "The arguments of the call of %q are not a JSON object.", f.Name)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, args)
	return &gcFunctionCall{Name: f.Name, Arguments: compact.Bytes()}, nil
}

// functionResult is a tool's result as GigaChat wants it: a JSON object as
// text. A result that is already one passes as is; any other text becomes
// {"result":"<text>"} (its <, > and & as written, like the rest of the body),
// and any other JSON value {"result":<value>}.
func functionResult(text string) string {
	t := strings.TrimSpace(text)
	if t != "" && json.Valid([]byte(t)) {
		if t[0] == '{' {
			return text
		}
		return `{"result":` + t + `}`
	}
	return string(append(plainjson.AppendString([]byte(`{"result":`), text), '}'))
}

// textOf flattens a message's content to text: a string, null, or parts of
// which only text (and, for assistants, refusal) is allowed.
func textOf(content json.RawMessage, param string, allowRefusal bool) (string, error) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || isNull(content) {
		return "", nil
	}
	if content[0] == '"' {
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return "", shlyuz.ErrInvalidValue(param+".content", "The content is not a valid string.")
		}
		return s, nil
	}
	var parts []oaPart
	if err := json.Unmarshal(content, &parts); err != nil {
		return "", shlyuz.ErrInvalidValue(param+".content", "The content is neither a string nor a list of parts.")
	}
	texts := make([]string, 0, len(parts))
	for j, p := range parts {
		switch {
		case p.Type == "text":
			texts = append(texts, p.Text)
		case p.Type == "refusal" && allowRefusal:
			texts = append(texts, p.Refusal)
		default:
			return "", shlyuz.ErrInvalidValue(param+".content", "GigaChat takes only text here; content[%d] has type %q.", j, p.Type)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// userContent flattens a user message's content to its text and its image URLs.
func userContent(content json.RawMessage, param string) (string, []string, error) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || content[0] != '[' {
		text, err := textOf(content, param, false)
		return text, nil, err
	}
	var parts []oaPart
	if err := json.Unmarshal(content, &parts); err != nil {
		return "", nil, shlyuz.ErrInvalidValue(param+".content", "The content is neither a string nor a list of parts.")
	}
	var texts, urls []string
	for j, p := range parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return "", nil, shlyuz.ErrInvalidValue(param+".content", "content[%d].image_url.url is missing.", j)
			}
			urls = append(urls, p.ImageURL.URL)
		default:
			return "", nil, shlyuz.ErrInvalidValue(param+".content", "GigaChat takes text and images; content[%d] has type %q.", j, p.Type)
		}
	}
	return strings.Join(texts, "\n"), urls, nil
}

func isNull(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || string(v) == "null"
}
