package gigachat

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// gcReply is GigaChat's chat v1 reply (it has no id).
type gcReply struct {
	Choices []gcChoice `json:"choices"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Usage   *gcUsage   `json:"usage"`
}

type gcChoice struct {
	Index        int     `json:"index"`
	Message      gcOut   `json:"message"`
	Delta        gcOut   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// gcOut is a reply's message or a chunk's delta.
type gcOut struct {
	Role             string          `json:"role"`
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	FunctionCall     *gcFunctionCall `json:"function_call"`
	FunctionsStateID string          `json:"functions_state_id"`
}

type gcUsage struct {
	PromptTokens          int64 `json:"prompt_tokens"`
	CompletionTokens      int64 `json:"completion_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
	PrecachedPromptTokens int64 `json:"precached_prompt_tokens"`
}

// usage is GigaChat's usage in OpenAI's terms. GigaChat leaves the
// precached tokens out of prompt_tokens and total_tokens (they are not
// billed, Sber says); OpenAI counts them in the prompt as cached_tokens, so
// they are added back and priced at the model's cache-read price (0).
func (u *gcUsage) usage() shlyuz.Usage {
	out := shlyuz.Usage{
		PromptTokens:     u.PromptTokens + max(u.PrecachedPromptTokens, 0),
		CompletionTokens: u.CompletionTokens,
		CachedTokens:     u.PrecachedPromptTokens,
	}
	return out.Normalized()
}

// OpenAI's shapes the translation writes.
type oaChoice struct {
	Index        int          `json:"index"`
	Message      oaOutMessage `json:"message"`
	FinishReason *string      `json:"finish_reason"`
}

type oaOutMessage struct {
	Role             string          `json:"role"`
	Content          *string         `json:"content"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []oaOutToolCall `json:"tool_calls,omitempty"`
	Images           []oaImage       `json:"images,omitempty"` // drawn by text2image (OpenRouter's shape)
}

type oaImage struct {
	Type     string `json:"type"` // image_url
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

type oaOutToolCall struct {
	Index    *int          `json:"index,omitempty"` // in stream deltas only
	ID       string        `json:"id"`
	Type     string        `json:"type"`
	Function oaOutFunction `json:"function"`
}

type oaOutFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// finishReason maps GigaChat's finish_reason to OpenAI's.
func finishReason(f string) string {
	switch f {
	case "function_call":
		return "tool_calls"
	case "blacklist":
		return "content_filter"
	}
	return f // stop, length, and anything new as it is
}

// toolCall is GigaChat's function_call as an OpenAI tool call. GigaChat gives
// no call ids, so the id is invented: from the functions_state_id GigaChat
// returned with the call when there is one ("call_gcs_<state>", which
// carries the state back to GigaChat on the next turn), else from our
// generation id and the choice ("call_<generation>_<choice>"), stable for a
// reply and its stream alike.
func toolCall(genID string, choice int, fc *gcFunctionCall, state string) oaOutToolCall {
	return oaOutToolCall{
		ID:       callID(genID, choice, state),
		Type:     "function",
		Function: oaOutFunction{Name: fc.Name, Arguments: argumentsText(fc.Arguments)},
	}
}

const stateCallPrefix = "call_gcs_"

func callID(genID string, choice int, state string) string {
	if state != "" && safeID(state) {
		return stateCallPrefix + state
	}
	if genID == "" || !safeID(genID) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		genID = hex.EncodeToString(b[:])
	}
	return "call_" + genID + "_" + strconv.Itoa(choice)
}

// stateOfCallID is the functions_state_id a call id carries, or "".
func stateOfCallID(id string) string {
	s, ok := strings.CutPrefix(id, stateCallPrefix)
	if !ok || !safeID(s) {
		return ""
	}
	return s
}

// safeID reports whether s is short and made of id characters only.
func safeID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// argumentsText is GigaChat's arguments object as the JSON text OpenAI wants.
func argumentsText(args json.RawMessage) string {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || isNull(args) {
		return "{}"
	}
	if args[0] == '"' { // already text
		var s string
		if json.Unmarshal(args, &s) == nil {
			return s
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, args) != nil {
		return string(args)
	}
	return b.String()
}

// fetchImage downloads a file GigaChat drew (text2image) by its id.
type fetchImage func(id string) ([]byte, error)

// imgTag is how GigaChat's text2image puts a drawn picture in the text.
var imgTag = regexp.MustCompile(`<img\s+src="([^"]+)"[^>]*>`)

// drawnImages takes GigaChat's <img src="…"/> tags out of content and
// downloads the files they name as data: URLs.
func drawnImages(content string, fetch fetchImage) (string, []oaImage, error) {
	tags := imgTag.FindAllStringSubmatch(content, -1)
	if len(tags) == 0 || fetch == nil {
		return content, nil, nil
	}
	images := make([]oaImage, 0, len(tags))
	for _, t := range tags {
		data, err := fetch(t[1])
		if err != nil {
			return "", nil, err
		}
		var img oaImage
		img.Type = "image_url"
		img.ImageURL.URL = "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(data)
		images = append(images, img)
	}
	return strings.TrimSpace(imgTag.ReplaceAllString(content, "")), images, nil
}

// decodeReply turns GigaChat's reply into OpenAI's choices and our usage;
// pictures it drew are fetched with fetch (nil: left as tags).
func decodeReply(data []byte, genID string, fetch fetchImage) (*shlyuz.ChatResponse, error) {
	var r gcReply
	if err := json.Unmarshal(data, &r); err != nil {
		if e := bodyError(data); e != nil {
			return nil, e
		}
		e := upstream.Malformed("the reply is not valid JSON")
		e.Cause = err
		return nil, e
	}
	if len(r.Choices) == 0 {
		if e := bodyError(data); e != nil {
			return nil, e
		}
		return nil, upstream.Malformed("the reply has no choices")
	}
	choices := make([]oaChoice, len(r.Choices))
	for i, c := range r.Choices {
		m := c.Message
		out := oaChoice{Index: c.Index, Message: oaOutMessage{Role: "assistant", ReasoningContent: m.ReasoningContent}}
		content, images, err := drawnImages(m.Content, fetch)
		if err != nil {
			return nil, err
		}
		out.Message.Content, out.Message.Images = &content, images
		if m.FunctionCall != nil && m.FunctionCall.Name != "" {
			out.Message.ToolCalls = []oaOutToolCall{toolCall(genID, c.Index, m.FunctionCall, m.FunctionsStateID)}
			if content == "" {
				out.Message.Content = nil
			}
		}
		if c.FinishReason != nil {
			f := finishReason(*c.FinishReason)
			if out.Message.ToolCalls != nil && f == "stop" {
				f = "tool_calls"
			}
			out.FinishReason = &f
		}
		choices[i] = out
	}
	b, err := plainjson.Marshal(choices)
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	resp := &shlyuz.ChatResponse{Created: r.Created, Choices: b}
	if f := choices[0].FinishReason; f != nil {
		resp.FinishReason = *f
	}
	if r.Usage != nil {
		resp.Usage = r.Usage.usage()
	}
	return resp, nil
}
