package fake

import (
	"encoding/json"
	"slices"
	"strings"
)

// chatArguments are the members of OpenAI's chat completions request
// (CreateChatCompletionRequest in OpenAI's OpenAPI description). OpenAI
// refuses any other with 400 "Unrecognized request argument supplied",
// and so does the fake: a gateway that sends what OpenAI does not take
// fails its tests as it would fail its users.
var chatArguments = []string{"messages", "model", "metadata", "top_logprobs", "temperature", "top_p", "user",
	"safety_identifier", "prompt_cache_key", "prompt_cache_retention", "prompt_cache_options", "service_tier", "modalities",
	"verbosity", "reasoning_effort", "max_completion_tokens", "frequency_penalty", "presence_penalty", "web_search_options",
	"response_format", "audio", "store", "moderation", "stream", "stop", "logit_bias", "logprobs", "max_tokens", "n",
	"prediction", "seed", "stream_options", "tools", "tool_choice", "parallel_tool_calls", "function_call", "functions"}

// refusedArgument is OpenAI's refusal of a request member it does not take
// (in its words: the first unknown member in the body's order), or of
// reasoning_effort and verbosity for a model that does not reason, or of
// web_search_options for a model that does not search; "" when every member
// is taken.
func refusedArgument(body []byte, model string) (msg, param, code string) {
	d := json.NewDecoder(strings.NewReader(string(body)))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return "", "", ""
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return "", "", ""
		}
		name, _ := t.(string)
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return "", "", ""
		}
		switch {
		case !slices.Contains(chatArguments, name):
			return "Unrecognized request argument supplied: " + name, "", ""
		case (name == "reasoning_effort" || name == "verbosity") && !reasoningModel(model),
			name == "web_search_options" && !strings.Contains(model, "search"):
			return "Unsupported parameter: '" + name + "' is not supported with this model.", name, "unsupported_parameter"
		}
	}
	return "", "", ""
}

// reasoningModel reports whether OpenAI's model reasons (o1, o3, o4-mini,
// gpt-5 and their dated names; not gpt-5-chat).
func reasoningModel(model string) bool {
	name := model[strings.LastIndexByte(model, '/')+1:]
	for _, p := range []string{"o1", "o3", "o4-mini", "gpt-5"} {
		if name == p || strings.HasPrefix(name, p+"-") || (p == "gpt-5" && strings.HasPrefix(name, "gpt-5.")) {
			return !strings.HasPrefix(name, "gpt-5-chat")
		}
	}
	return false
}
