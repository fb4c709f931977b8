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

type estimateMessage struct {
	Content json.RawMessage `json:"content"`
}

type estimatePart struct {
	Type string          `json:"type"`
	Text json.RawMessage `json:"text"` // its length is enough: no need to unescape it
}

// EstimatePrompt guesses the prompt tokens of an OpenAI messages array. It
// counts text bytes (a token is at least two bytes of UTF-8 in practice, about
// four on average), a fixed cost per image part and a few tokens per message.
func EstimatePrompt(messages json.RawMessage) (PromptEstimate, error) {
	var msgs []estimateMessage
	if err := json.Unmarshal(messages, &msgs); err != nil {
		return PromptEstimate{}, err
	}
	var textBytes, images, overhead int64
	for _, m := range msgs {
		overhead += 4
		if len(m.Content) == 0 || m.Content[0] == 'n' { // absent or null
			continue
		}
		if m.Content[0] == '"' { // a string: its JSON length (escapes included) is a safe size
			textBytes += int64(len(m.Content) - 2)
			continue
		}
		var parts []estimatePart
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return PromptEstimate{}, err
		}
		for _, p := range parts {
			if p.Type == "text" {
				textBytes += int64(max(0, len(p.Text)-2))
			} else {
				images++
			}
		}
	}
	return PromptEstimate{
		Reserve: textBytes/2 + images*ImageTokens + overhead + 16,
		Likely:  max(1, textBytes/4+images*85+overhead),
	}, nil
}
