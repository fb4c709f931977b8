package api

import (
	"encoding/json"
	"strings"
)

// What a protocol that answers from a chat upstream (Messages, Responses,
// Gemini) reads of the chat reply and of its stream's chunks.

// ChatChoice is one choice of an OpenAI reply.
type ChatChoice struct {
	Index   int `json:"index"`
	Message struct {
		Content   json.RawMessage `json:"content"`
		Reasoning string          `json:"reasoning"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		Annotations []URLCitation `json:"annotations"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
}

// URLCitation is an annotation of a chat message citing a web search
// result (OpenRouter's and OpenAI's url_citation).
type URLCitation struct {
	Type        string `json:"type"`
	URLCitation struct {
		URL        string `json:"url"`
		Title      string `json:"title"`
		StartIndex int    `json:"start_index"`
		EndIndex   int    `json:"end_index"`
	} `json:"url_citation"`
}

// ChatChunk is a chat.completion.chunk.
type ChatChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   *string `json:"content"`
			Reasoning *string `json:"reasoning"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			Annotations []URLCitation `json:"annotations"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// ChatText is a message's content as text: a string, or its text parts.
func ChatText(c json.RawMessage) string {
	if len(c) == 0 || IsNull(c) {
		return ""
	}
	if c[0] == '"' {
		var s string
		_ = json.Unmarshal(c, &s)
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(c, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// AskedName is the model a reply names: the client's own name for served
// when it asked by one of served's aliases ("claude-sonnet-4-5-20250929",
// "gemini-2.5-flash"), as the providers echo it. A client that reads its
// model's age from the name (Claude Code) would misread the catalog's id
// ("claude-sonnet-4.5" read as the retired Sonnet 4).
func (s *Server) AskedName(asked, served string) string {
	if asked == served {
		return served
	}
	if m, ok := s.Gw.Catalog().Get(asked); ok && m.ID == served {
		return asked
	}
	return served
}
