package shlyuz

import "testing"

func TestOpenAIReasoningModel(t *testing.T) {
	for name, want := range map[string]bool{
		"openai/o3": true, "o1": true, "o1-mini": true, "o3-pro-2025-06-10": true, "openai/o4-mini": true,
		"openai/gpt-5": true, "gpt-5-mini": true, "gpt-5-nano-2025-08-07": true, "openai/gpt-5.1": true, "gpt-5-codex": true,
		"openai/gpt-5-chat": false, "gpt-5-chat-latest": false, "openai/gpt-4o": false, "gpt-4.1": false,
		"omni-moderation-latest": false, "openai/o": false, "ollama/llama3": false, "oss-20b": false,
	} {
		if got := OpenAIReasoningModel(name); got != want {
			t.Errorf("OpenAIReasoningModel(%q) = %v, want %v", name, got, want)
		}
	}
}
