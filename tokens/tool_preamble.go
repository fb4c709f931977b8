package tokens

import "strings"

// openAIToolPreamble is what OpenAI's models add once to a prompt with
// functions beyond the functions themselves: the closing of the namespace
// they are rendered in, 12 tokens by OpenAI's cookbook (num_tokens_for_tools'
// func_end; each function's own opening, 7 to 10, is within the 16 a
// definition is held).
const openAIToolPreamble = 12

// toolPreamble is the tool-use instructions the model's maker adds to a
// prompt with definitions, whichever upstream serves it (an aggregator or a
// cloud bills what the maker's own rendering counts): Anthropic's
// documented system prompt; OpenAI's closing; nothing for Gemini, whose
// count of a request with tools is its declarations' text (Google's
// countTokens and SDK); and for any other model, whose chat template the
// gateway does not know, Anthropic's, the largest any maker documents.
func toolPreamble(model string) int64 {
	switch fam, name := modelFamily(model); {
	case fam == familyOpenAI:
		return openAIToolPreamble
	case fam == familyGemini && strings.Contains(name, "gemini"):
		return 0
	}
	return definitionsPreamble
}
