package api

// Sampling is the sampling settings a client protocol (Anthropic Messages,
// OpenAI Responses, Gemini) carries over into the chat fields that go
// upstream, under chat's names; an unset one is left out.
type Sampling struct {
	Temperature *float64
	TopP        *float64
	TopK        *int64
	Stop        []string
}

// Put sets the settings given into the chat fields f.
func (s Sampling) Put(f map[string]any) {
	if s.Temperature != nil {
		f["temperature"] = *s.Temperature
	}
	if s.TopP != nil {
		f["top_p"] = *s.TopP
	}
	if s.TopK != nil {
		f["top_k"] = *s.TopK
	}
	if len(s.Stop) > 0 {
		f["stop"] = s.Stop
	}
}
