package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// Thinking through /api/v1/messages, streamed, with a tool round trip: the
// SDK sends the signed thinking block back as Anthropic requires (the fake
// refuses a tool turn without it when thinking is on).
func TestAnthropicSDKStreamingThinkingToolRoundTrip(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := anthropicClient(key)
	tool := anthropic.ToolParam{Name: "get_weather", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}
	params := anthropic.MessageNewParams{
		Model: "claude/model", MaxTokens: 4000, Thinking: anthropic.ThinkingConfigParamOfEnabled(2000),
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
		Tools:    []anthropic.ToolUnionParam{{OfTool: &tool}},
	}
	first := streamMessage(t, client, params)
	if len(first.Content) != 2 || first.Content[0].Type != "thinking" || first.Content[0].Thinking != fake.AnthropicThinking ||
		first.Content[0].Signature != fake.AnthropicSignature || first.Content[1].Type != "tool_use" {
		t.Fatalf("first turn %+v", first.Content)
	}
	params.Messages = append(params.Messages, first.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(first.Content[1].ID, "Sunny", false)))
	second := streamMessage(t, client, params)
	if second.StopReason != anthropic.StopReasonEndTurn || second.Content[0].Type != "thinking" || !strings.HasPrefix(second.Content[1].Text, "tok0") {
		t.Fatalf("second turn %+v", second.Content)
	}
}

// reasoning in chat completions, to an Anthropic upstream: the thinking comes
// back as message.reasoning and reasoning_details, and the details sent back
// with the tool result become the signed thinking block Anthropic wants.
func TestChatReasoningOnAnthropic(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	tools := []map[string]any{{"type": "function", "function": map[string]any{"name": "get_weather", "parameters": map[string]any{"type": "object"}}}}
	user := map[string]any{"role": "user", "content": "Weather in Paris?"}
	body := map[string]any{"model": "claude/model", "max_tokens": 4000, "reasoning": map[string]any{"max_tokens": 2000},
		"tools": tools, "messages": []any{user}}
	var r struct {
		Choices []struct {
			Message struct {
				Reasoning        string            `json:"reasoning"`
				ReasoningDetails []json.RawMessage `json:"reasoning_details"`
				ToolCalls        []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &r); st != 200 {
		t.Fatalf("status %d", st)
	}
	m := r.Choices[0].Message
	if m.Reasoning != fake.AnthropicThinking || len(m.ReasoningDetails) != 1 || len(m.ToolCalls) != 1 {
		t.Fatalf("message %+v", m)
	}
	body["messages"] = []any{user,
		map[string]any{"role": "assistant", "content": nil, "reasoning_details": m.ReasoningDetails,
			"tool_calls": []any{map[string]any{"id": m.ToolCalls[0].ID, "type": "function", "function": map[string]any{"name": "get_weather", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": m.ToolCalls[0].ID, "content": "Sunny"}}
	var e apiError
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &e); st != 200 {
		t.Fatalf("the round trip: %d %+v", st, e.Error)
	}

	t.Run("streamed", func(t *testing.T) {
		resp := postChat(t, h.base, key, map[string]any{"model": "claude/model", "max_tokens": 4000, "stream": true,
			"reasoning": map[string]any{"effort": "low"}, "messages": []any{user}})
		defer resp.Body.Close()
		var reasoning strings.Builder
		for _, ev := range sseEvents(t, resp.Body) {
			var ch struct {
				Choices []struct {
					Delta struct {
						Reasoning string `json:"reasoning"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if json.Unmarshal([]byte(ev), &ch) == nil && len(ch.Choices) > 0 {
				reasoning.WriteString(ch.Choices[0].Delta.Reasoning)
			}
		}
		if reasoning.String() != fake.AnthropicThinking {
			t.Fatalf("streamed reasoning %q", reasoning.String())
		}
	})
}
