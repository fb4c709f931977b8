package fake

import (
	"bytes"
	"strconv"
)

// UsageMarker in a request's text asks the fake to report more usage than
// the prompt and the words it counted, each in its protocol's own fields:
// "[[fake-usage cached=96 write=10 write1h=5 reasoning=20]]". cached tokens
// were read from a prompt cache, write (5-minute) and write1h were written to
// one (Anthropic's lifetimes), reasoning tokens were thought before the
// reply. The prompt's counted tokens are the fresh part; the others add to
// it, and reasoning adds to the completion.
const UsageMarker = "[[fake-usage"

// ExtraUsage is what a UsageMarker asked for.
type ExtraUsage struct {
	Cached, Write, Write1h, Reasoning int
	// WebSearches are the searches a server web search tool ran (one per
	// web search tool offered, up to its max_uses).
	WebSearches int
}

// usageOf reads the UsageMarker in a request body (any protocol: the marker
// is plain text inside a JSON string).
func usageOf(body []byte) ExtraUsage {
	var u ExtraUsage
	i := bytes.Index(body, []byte(UsageMarker))
	if i < 0 {
		return u
	}
	rest := body[i+len(UsageMarker):]
	end := bytes.Index(rest, []byte("]]"))
	if end < 0 {
		return u
	}
	for _, f := range bytes.Fields(rest[:end]) {
		k, v, ok := bytes.Cut(f, []byte("="))
		n, err := strconv.Atoi(string(v))
		if !ok || err != nil || n < 0 {
			continue
		}
		switch string(k) {
		case "cached":
			u.Cached = n
		case "write":
			u.Write = n
		case "write1h":
			u.Write1h = n
		case "reasoning":
			u.Reasoning = n
		}
	}
	return u
}

// Prompt is the whole prompt in OpenAI's sense: fresh, read from the cache
// and written to it.
func (sc *Script) Prompt() int {
	return sc.PromptTokens + sc.Extra.Cached + sc.Extra.Write + sc.Extra.Write1h
}

// Completion is the completion of the given words in OpenAI's sense: the
// words (of every choice) and the reasoning.
func (sc *Script) Completion(words int) int { return words*sc.choices() + sc.Extra.Reasoning }

// choices is how many choices the reply has (at least one).
func (sc *Script) choices() int { return max(sc.N, 1) }

// appendOpenAIUsage appends OpenAI's usage object for the given words.
func appendOpenAIUsage(b []byte, sc *Script, words int) []byte {
	prompt, completion := sc.Prompt(), sc.Completion(words)
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.Extra.Cached), 10)
	if w := sc.Extra.Write + sc.Extra.Write1h; w > 0 { // OpenRouter's field
		b = append(b, `,"cache_write_tokens":`...)
		b = strconv.AppendInt(b, int64(w), 10)
	}
	b = append(b, `,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.Extra.Reasoning), 10)
	return append(b, `,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`...)
}

// appendAnthropicUsage appends Anthropic's usage members (no braces):
// input_tokens leaves out the cache, output_tokens includes the thinking.
func appendAnthropicUsage(b []byte, sc *Script, output int) []byte {
	b = append(b, `"input_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.PromptTokens), 10)
	b = append(b, `,"cache_creation_input_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.Extra.Write+sc.Extra.Write1h), 10)
	b = append(b, `,"cache_read_input_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.Extra.Cached), 10)
	b = append(b, `,"cache_creation":{"ephemeral_5m_input_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.Extra.Write), 10)
	b = append(b, `,"ephemeral_1h_input_tokens":`...)
	b = strconv.AppendInt(b, int64(sc.Extra.Write1h), 10)
	b = append(b, `},"output_tokens":`...)
	b = strconv.AppendInt(b, int64(output), 10)
	return appendServerToolUse(b, sc)
}

// appendServerToolUse appends Anthropic's server_tool_use member of usage
// when the request offered a web search tool.
func appendServerToolUse(b []byte, sc *Script) []byte {
	if sc.Extra.WebSearches == 0 {
		return b
	}
	b = append(b, `,"server_tool_use":{"web_search_requests":`...)
	b = strconv.AppendInt(b, int64(sc.Extra.WebSearches), 10)
	return append(b, '}')
}
