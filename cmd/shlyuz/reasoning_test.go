package main

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestReasoningModelsNeverGetMaxTokens: the fake refuses max_tokens and a
// temperature for OpenAI's reasoning models as OpenAI does; through the
// gateway the official SDK's calls to them succeed, with or without a
// ceiling, streamed or not, and are billed at the list price.
func TestReasoningModelsNeverGetMaxTokens(t *testing.T) {
	// The fake refuses what OpenAI refuses.
	var refusal struct {
		Error struct{ Param, Code string } `json:"error"`
	}
	if st := call(t, strings.TrimSuffix(h.fakeURL, "/v1"), "POST", "/v1/chat/completions", "", map[string]any{"model": "o3", "max_tokens": 10,
		"messages": []map[string]any{{"role": "user", "content": "hi"}}}, &refusal); st != 400 || refusal.Error.Param != "max_tokens" {
		t.Fatalf("the fake took max_tokens for o3: %d %+v", st, refusal)
	}

	_, key := account(t, h.base, 50_000_000, nil)
	client := sdkClient(key)
	ctx := context.Background()
	for _, model := range []string{"openai/o3", "openai/gpt-5"} {
		for _, tc := range []struct {
			name   string
			params openai.ChatCompletionNewParams
		}{
			{"no ceiling", openai.ChatCompletionNewParams{}},
			{"max_tokens and temperature", openai.ChatCompletionNewParams{MaxTokens: openai.Int(50), Temperature: openai.Float(0.2), TopP: openai.Float(0.5)}},
			{"max_completion_tokens", openai.ChatCompletionNewParams{MaxCompletionTokens: openai.Int(50)}},
		} {
			t.Run(model+" "+tc.name, func(t *testing.T) {
				p := tc.params
				p.Model = model
				p.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Think about prices.")}
				resp, err := client.Chat.Completions.New(ctx, p)
				if err != nil {
					t.Fatalf("plain: %v", err)
				}
				if resp.Usage.CompletionTokens != 8 || len(resp.Choices) != 1 {
					t.Errorf("plain reply %+v", resp.Usage)
				}
				st := client.Chat.Completions.NewStreaming(ctx, p)
				chunks := 0
				for st.Next() {
					chunks++
				}
				if err := st.Err(); err != nil || chunks < 3 {
					t.Fatalf("stream: %d chunks, %v", chunks, err)
				}
			})
		}
	}
}
