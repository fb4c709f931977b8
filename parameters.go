package shlyuz

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// chatParameters are the request parameters (OpenRouter's names) each
// upstream protocol's adapter carries to its upstream, translated into the
// upstream's own setting where it has another name (reasoning into
// Anthropic's thinking or Gemini's thinkingConfig). A parameter not listed
// for the protocol is dropped before the call and named on the generation
// record (DroppedParameters); this table is also what OpenRouter's
// supported_parameters says of a model and what provider.require_parameters
// checks.
var chatParameters = map[string][]string{
	"openai": {"max_tokens", "max_completion_tokens", "temperature", "top_p", "frequency_penalty", "presence_penalty",
		"seed", "stop", "logit_bias", "logprobs", "top_logprobs", "response_format", "structured_outputs",
		"tools", "tool_choice", "parallel_tool_calls", "prediction"},
	"anthropic": {"max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k", "stop", "tools", "tool_choice", "parallel_tool_calls",
		"response_format", "reasoning", "reasoning_effort", "include_reasoning"},
	"gemini": {"max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k", "frequency_penalty", "presence_penalty",
		"seed", "stop", "response_format", "tools", "tool_choice", "reasoning", "reasoning_effort", "include_reasoning"},
	"gigachat": {"max_tokens", "max_completion_tokens", "temperature", "top_p", "repetition_penalty", "tools", "tool_choice", "reasoning_effort"},
	"yandex":   {"max_tokens", "max_completion_tokens", "temperature", "response_format", "tools", "tool_choice", "parallel_tool_calls", "reasoning_effort"},
}

// openAIReasoningParameters are what OpenAI takes only for its reasoning
// models: reasoning (OpenRouter's object, sent as reasoning_effort) and
// verbosity; OpenAI refuses them for the others.
var openAIReasoningParameters = []string{"reasoning", "reasoning_effort", "include_reasoning", "verbosity"}

// openRouterParameters are the request parameters OpenRouter's reference
// names (its supported_parameters enum): what a model may or may not carry.
var openRouterParameters = []string{"temperature", "top_p", "top_k", "min_p", "top_a", "frequency_penalty", "presence_penalty",
	"repetition_penalty", "max_tokens", "max_completion_tokens", "logit_bias", "logprobs", "top_logprobs", "prediction", "seed",
	"response_format", "structured_outputs", "stop", "tools", "tool_choice", "parallel_tool_calls", "include_reasoning",
	"reasoning", "reasoning_effort", "web_search_options", "verbosity"}

// ChatParameters is what a chat request for the model (its catalog id) may
// carry through an upstream of the protocol; none for a protocol without
// chat. OpenAI's reasoning models lose the sampling parameters OpenAI
// refuses for them (ReasoningRefused) and gain reasoning. The slice must
// not be changed.
func ChatParameters(protocol, model string) []string {
	p := chatParameters[protocol]
	if protocol == "openai" && OpenAIReasoningModel(model) {
		p = slices.DeleteFunc(slices.Clone(p), func(k string) bool { return slices.Contains(ReasoningRefused, k) })
		return append(p, openAIReasoningParameters...)
	}
	return p
}

// Carries reports whether an upstream of the protocol, whose operator
// lists extra as the parameters it takes beyond its protocol's (an
// OpenAI-compatible server that takes top_k), carries the parameter for
// the model.
func Carries(protocol, model string, extra []string, param string) bool {
	return slices.Contains(ChatParameters(protocol, model), param) || slices.Contains(extra, param)
}

// DroppedParameters are the parameters the request sets (ParametersSet) that
// an upstream of the protocol (with the operator's extra) does not carry for
// the model: the adapter leaves them out, and the generation record names them.
func DroppedParameters(protocol, model string, extra []string, fields map[string]json.RawMessage) []string {
	var out []string // nil for the usual request, whose parameters are all carried
	for name, v := range fields {
		if isParameter(name, v) && !Carries(protocol, model, extra, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// ParametersSet is the chat parameters a request sets (a member of the body
// that is not null and that OpenRouter names a parameter), sorted. Members
// the gateway itself reads (model, messages, stream…) are not parameters.
func ParametersSet(fields map[string]json.RawMessage) []string {
	var out []string
	for name, v := range fields {
		if isParameter(name, v) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// isParameter reports whether the member sets a parameter: OpenRouter names
// it one and its value is not null.
func isParameter(name string, v json.RawMessage) bool {
	// A value is never turned into a string here: messages can be megabytes.
	return slices.Contains(openRouterParameters, name) && string(bytes.TrimSpace(v)) != "null"
}

// openAIRequestFields are the members of OpenAI's CreateChatCompletionRequest
// (its OpenAPI description): what OpenAI's chat API takes. It answers
// anything else with 400 "Unrecognized request argument supplied".
var openAIRequestFields = []string{"metadata", "top_logprobs", "temperature", "top_p", "user", "safety_identifier",
	"prompt_cache_key", "prompt_cache_retention", "prompt_cache_options", "messages", "model", "service_tier", "modalities",
	"verbosity", "reasoning_effort", "max_completion_tokens", "frequency_penalty", "presence_penalty", "web_search_options",
	"response_format", "audio", "store", "moderation", "stream", "stop", "logit_bias", "logprobs", "max_tokens", "n",
	"prediction", "seed", "stream_options", "tools", "tool_choice", "parallel_tool_calls", "function_call", "functions"}

// OpenAITakes reports whether an OpenAI upstream takes the request member
// as it is for the model (its name at the upstream): a member of OpenAI's
// request, minus what OpenAI refuses for the model (the sampling parameters
// of a reasoning model; reasoning_effort and verbosity of the others;
// web_search_options but for its search models), or one of the operator's
// extra parameters for the upstream.
func OpenAITakes(member, model string, extra []string) bool {
	if slices.Contains(extra, member) {
		return true
	}
	if !slices.Contains(openAIRequestFields, member) {
		return false
	}
	reasoning := OpenAIReasoningModel(model)
	switch member {
	case "reasoning_effort", "verbosity":
		return reasoning
	case "web_search_options":
		return strings.Contains(strings.ToLower(model), "search")
	}
	return !reasoning || !slices.Contains(ReasoningRefused, member)
}
