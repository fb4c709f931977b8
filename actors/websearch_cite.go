package actors

import (
	"encoding/json"

	shlyuz "github.com/shlyuz/shlyuz"
)

// urlCitation is OpenRouter's annotation of a web search result on an
// assistant message (OpenAI's url_citation). The plugin's results cite no
// span of the reply: start_index and end_index are 0.
type urlCitation struct {
	Type        string `json:"type"`
	URLCitation struct {
		URL        string `json:"url"`
		Title      string `json:"title"`
		Content    string `json:"content,omitempty"`
		StartIndex int    `json:"start_index"`
		EndIndex   int    `json:"end_index"`
	} `json:"url_citation"`
}

func citations(results []shlyuz.WebResult) json.RawMessage {
	out := make([]urlCitation, len(results))
	for i, r := range results {
		out[i].Type = "url_citation"
		out[i].URLCitation.URL, out[i].URLCitation.Title, out[i].URLCitation.Content = r.URL, r.Title, r.Content
	}
	raw, _ := json.Marshal(out)
	return raw
}

// annotate puts the citations on every choice's member (message, or delta
// in a stream's chunk) of an OpenAI choices array; ok is false when the
// array holds no such member.
func annotate(choices json.RawMessage, member string, cites json.RawMessage) (json.RawMessage, bool) {
	var cs []map[string]json.RawMessage
	if json.Unmarshal(choices, &cs) != nil {
		return choices, false
	}
	done := false
	for _, c := range cs {
		var m map[string]json.RawMessage
		if json.Unmarshal(c[member], &m) != nil || m == nil {
			continue
		}
		m["annotations"] = cites
		c[member], _ = json.Marshal(m)
		done = true
	}
	if !done {
		return choices, false
	}
	out, _ := json.Marshal(cs)
	return out, true
}

// annotateChunk puts the citations on the deltas of a chat.completion.chunk.
func annotateChunk(data []byte, cites json.RawMessage) ([]byte, bool) {
	var chunk map[string]json.RawMessage
	if json.Unmarshal(data, &chunk) != nil {
		return data, false
	}
	choices, ok := annotate(chunk["choices"], "delta", cites)
	if !ok {
		return data, false
	}
	chunk["choices"] = choices
	out, _ := json.Marshal(chunk)
	return out, true
}
