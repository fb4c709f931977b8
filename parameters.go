package shlyuz

import (
	"bytes"
	"encoding/json"
	"slices"
)

// chatParameters are the request parameters each upstream protocol's adapter
// carries to the upstream (OpenRouter's supported_parameters); an OpenAI
// upstream gets the request as it came.
var chatParameters = map[string][]string{
	"openai": {"max_tokens", "max_completion_tokens", "temperature", "top_p", "frequency_penalty", "presence_penalty",
		"seed", "stop", "logit_bias", "logprobs", "top_logprobs", "response_format", "structured_outputs",
		"tools", "tool_choice", "parallel_tool_calls"},
	"anthropic": {"max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k", "stop", "tools", "tool_choice", "parallel_tool_calls"},
	"gemini": {"max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k", "frequency_penalty", "presence_penalty",
		"seed", "stop", "response_format", "tools", "tool_choice"},
	"gigachat": {"max_tokens", "max_completion_tokens", "temperature", "top_p", "repetition_penalty", "tools", "tool_choice"},
	"yandex":   {"max_tokens", "max_completion_tokens", "temperature", "response_format", "tools", "tool_choice", "parallel_tool_calls"},
}

// ChatParameters is what a chat request for the model (its catalog id) may
// carry through an upstream of the protocol; none for a protocol without
// chat. OpenAI's reasoning models lose the sampling parameters OpenAI
// refuses for them (ReasoningRefused). The slice must not be changed.
func ChatParameters(protocol, model string) []string {
	p := chatParameters[protocol]
	if protocol == "openai" && OpenAIReasoningModel(model) {
		return slices.DeleteFunc(slices.Clone(p), func(k string) bool { return slices.Contains(ReasoningRefused, k) })
	}
	return p
}

// ParametersSet is the chat parameters a request sets (a member of the body
// that is not null and that some protocol's table names), sorted. Members
// the gateway itself reads (model, messages, stream…) are not parameters.
func ParametersSet(fields map[string]json.RawMessage) []string {
	var out []string
	for name, v := range fields {
		if slices.Contains(out, name) || !isParameter(name) {
			continue
		}
		// A value is never turned into a string here: messages can be megabytes.
		if string(bytes.TrimSpace(v)) == "null" {
			continue
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// isParameter reports whether some protocol's table names the member.
func isParameter(name string) bool {
	for _, p := range chatParameters {
		if slices.Contains(p, name) {
			return true
		}
	}
	return false
}
