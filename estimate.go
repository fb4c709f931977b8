package shlyuz

import "encoding/json"

// PromptEstimate is what the gateway guesses of a prompt's size before the
// upstream counts it: Reserve is a safe upper bound used to reserve credits,
// Likely is used to bill a stream that was cut before the upstream reported usage.
type PromptEstimate struct {
	Reserve int64
	Likely  int64
}

// ImageTokens is what one image part is assumed to cost when reserving.
const ImageTokens = 1_600

// EstimateCompletion counts the completion tokens of a finished reply's OpenAI
// choices array when the upstream reported none: a token per four bytes of
// text content, refusals and tool-call arguments (rounded up), at least one
// per choice that said anything.
func EstimateCompletion(choices json.RawMessage) int64 {
	var cs []struct {
		Message struct {
			Content   json.RawMessage `json:"content"`
			Refusal   json.RawMessage `json:"refusal"`
			ToolCalls []struct {
				Function struct {
					Name      json.RawMessage `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	}
	if json.Unmarshal(choices, &cs) != nil {
		return 0
	}
	var tokens int64
	for _, c := range cs {
		var b int64
		b += textBytes(c.Message.Content) + textBytes(c.Message.Refusal)
		for _, tc := range c.Message.ToolCalls {
			b += textBytes(tc.Function.Name) + textBytes(tc.Function.Arguments)
		}
		if b > 0 {
			tokens += (b + 3) / 4
		}
	}
	return tokens
}

// textBytes is the size of a JSON string's text, or of an array of text parts.
func textBytes(v json.RawMessage) int64 {
	switch {
	case len(v) == 0 || v[0] == 'n':
		return 0
	case v[0] == '"':
		return int64(max(0, len(v)-2))
	case v[0] == '[':
		var parts []estimatePart
		if json.Unmarshal(v, &parts) != nil {
			return 0
		}
		var n int64
		for _, p := range parts {
			n += textBytes(p.Text)
		}
		return n
	}
	return 0
}

type estimateMessage struct {
	Content json.RawMessage `json:"content"`
}

type estimatePart struct {
	Type string          `json:"type"`
	Text json.RawMessage `json:"text"` // its length is enough: no need to unescape it
}

// EstimatePrompt guesses the prompt tokens of an OpenAI messages array: the
// text by the kind of its characters (textTokens), a fixed cost per image part
// and a few tokens per message.
func EstimatePrompt(messages json.RawMessage) (PromptEstimate, error) {
	var msgs []estimateMessage
	if err := json.Unmarshal(messages, &msgs); err != nil {
		return PromptEstimate{}, err
	}
	var text PromptEstimate
	var images, overhead int64
	add := func(raw json.RawMessage) {
		r, l := textTokens(raw)
		text.Reserve += r
		text.Likely += l
	}
	for _, m := range msgs {
		overhead += 4
		if len(m.Content) == 0 || m.Content[0] == 'n' { // absent or null
			continue
		}
		if m.Content[0] == '"' {
			add(m.Content)
			continue
		}
		var parts []estimatePart
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return PromptEstimate{}, err
		}
		for _, p := range parts {
			if p.Type == "text" {
				add(p.Text)
			} else {
				images++
			}
		}
	}
	return PromptEstimate{
		Reserve: text.Reserve + images*ImageTokens + overhead + 16,
		Likely:  max(1, text.Likely+images*85+overhead),
	}, nil
}
