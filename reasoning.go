package shlyuz

import "strings"

// OpenAIReasoningModel reports whether a model name (with or without its
// "openai/" prefix) is one of OpenAI's reasoning models, the o-series and the
// gpt-5 family (not gpt-5-chat): OpenAI refuses max_tokens for them
// (max_completion_tokens only) and refuses the sampling parameters in
// ReasoningRefused.
func OpenAIReasoningModel(name string) bool {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToLower(name)
	if strings.HasPrefix(name, "gpt-5") {
		return !strings.Contains(name, "-chat")
	}
	if len(name) >= 2 && name[0] == 'o' && name[1] >= '1' && name[1] <= '9' {
		return len(name) == 2 || name[2] == '-'
	}
	return false
}

// ReasoningRefused are the chat parameters OpenAI refuses for its reasoning
// models ("Unsupported parameter" or "Unsupported value"): the gateway drops
// them rather than fail the call, as OpenRouter does.
var ReasoningRefused = []string{"temperature", "top_p", "presence_penalty", "frequency_penalty", "logprobs", "top_logprobs", "logit_bias"}
