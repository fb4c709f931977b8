package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// anthropicMessage is Anthropic's Message: a finished reply, and the
// message of a stream's message_start.
type anthropicMessage struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Model        string          `json:"model"`
	Content      []anthropicOut  `json:"content"`
	StopReason   *string         `json:"stop_reason"`
	StopSequence *string         `json:"stop_sequence"`
	Usage        *anthropicUsage `json:"usage"`
}

// anthropicOut is a content block of a reply.
type anthropicOut struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

// anthropicUsage is Anthropic's usage: input_tokens without the cached part.
type anthropicUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

func anthropicUsageOf(r *actors.Receipt) *anthropicUsage {
	u := r.Usage
	return &anthropicUsage{InputTokens: max(u.PromptTokens-u.CachedTokens-u.CacheWriteTokens, 0), OutputTokens: u.CompletionTokens,
		CacheReadInputTokens: u.CachedTokens, CacheCreationInputTokens: u.CacheWriteTokens}
}

// stopReason is Anthropic's stop_reason for OpenAI's finish_reason.
func stopReason(finish string) string {
	switch finish {
	case "length":
		return "max_tokens"
	case "tool_calls", "function_call":
		return "tool_use"
	case "content_filter":
		return "refusal"
	}
	return "end_turn"
}

// ChatChoice is one choice of an OpenAI reply (the shared shape).
type ChatChoice = api.ChatChoice

// ChatText is a message's content as text: a string, or its text parts.
func ChatText(c json.RawMessage) string { return api.ChatText(c) }

// toolInputObject is a tool call's arguments as Anthropic's input object.
func toolInputObject(args string) json.RawMessage {
	t := strings.TrimSpace(args)
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	return json.RawMessage("{}")
}

// AnthropicMessageOf is a chat reply (its first choice) as Anthropic's Message.
func AnthropicMessageOf(choices json.RawMessage, id string, r *actors.Receipt) *anthropicMessage {
	var cs []ChatChoice
	_ = json.Unmarshal(choices, &cs)
	m := &anthropicMessage{ID: id, Type: "message", Role: "assistant", Model: r.Model,
		Content: []anthropicOut{}, Usage: anthropicUsageOf(r)}
	finish := r.FinishReason
	if len(cs) > 0 {
		c := &cs[0]
		if c.FinishReason != "" {
			finish = c.FinishReason
		}
		if th := c.Message.Reasoning; th != "" {
			sig := ""
			m.Content = append(m.Content, anthropicOut{Type: "thinking", Thinking: &th, Signature: &sig})
		}
		if text := ChatText(c.Message.Content); text != "" {
			m.Content = append(m.Content, anthropicOut{Type: "text", Text: &text})
		}
		for _, tc := range c.Message.ToolCalls {
			m.Content = append(m.Content, anthropicOut{Type: "tool_use", ID: tc.ID, Name: tc.Function.Name,
				Input: toolInputObject(tc.Function.Arguments)})
		}
	}
	stop := stopReason(finish)
	m.StopReason = &stop
	return m
}

// restamp puts our generation id and model id on an upstream's Message,
// leaving the rest as Anthropic wrote it.
func restamp(message []byte, id, model string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(message, &m) != nil || m == nil {
		return message
	}
	m["id"] = plainjson.AppendString(nil, id)
	m["model"] = plainjson.AppendString(nil, model)
	out, err := plainjson.Marshal(m)
	if err != nil {
		return message
	}
	return out
}
