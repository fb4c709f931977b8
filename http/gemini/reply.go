package gemini

import (
	"encoding/json"

	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// The GenerateContentResponse the gateway writes for a reply that came
// from an upstream of another protocol.
type response struct {
	Candidates    []candidate    `json:"candidates"`
	UsageMetadata *usageMetadata `json:"usageMetadata,omitempty"`
	ModelVersion  string         `json:"modelVersion,omitempty"`
	ResponseID    string         `json:"responseId,omitempty"`
}

type candidate struct {
	Content      outContent `json:"content"`
	FinishReason string     `json:"finishReason,omitempty"`
	Index        int        `json:"index"`
}

type outContent struct {
	Role  string    `json:"role"`
	Parts []outPart `json:"parts"`
}

type outPart struct {
	Text         *string       `json:"text,omitempty"`
	Thought      bool          `json:"thought,omitempty"`
	FunctionCall *functionCall `json:"functionCall,omitempty"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// usageMetadata is Google's usage: candidatesTokenCount leaves the thinking
// out, thoughtsTokenCount holds it; promptTokenCount includes the cached part.
type usageMetadata struct {
	PromptTokenCount        int64 `json:"promptTokenCount"`
	CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int64 `json:"thoughtsTokenCount,omitempty"`
	CachedContentTokenCount int64 `json:"cachedContentTokenCount,omitempty"`
	TotalTokenCount         int64 `json:"totalTokenCount"`
}

func usageOf(r *actors.Receipt) *usageMetadata {
	u := r.Usage
	return &usageMetadata{
		PromptTokenCount:        u.PromptTokens,
		CandidatesTokenCount:    max(u.CompletionTokens-u.ReasoningTokens, 0),
		ThoughtsTokenCount:      u.ReasoningTokens,
		CachedContentTokenCount: u.CachedTokens,
		TotalTokenCount:         u.PromptTokens + u.CompletionTokens,
	}
}

// finishReason is Google's finishReason for OpenAI's finish_reason.
func finishReason(finish string) string {
	switch finish {
	case "length":
		return "MAX_TOKENS"
	case "content_filter":
		return "SAFETY"
	}
	return "STOP" // a function call finishes with STOP too
}

// argsOf is a call's arguments as the object Google's args is.
func argsOf(arguments string) json.RawMessage {
	if raw := json.RawMessage(arguments); json.Valid(raw) && len(arguments) > 0 && arguments[0] == '{' {
		return raw
	}
	return json.RawMessage("{}")
}

// replyOf is an OpenAI reply's choices as a GenerateContentResponse.
func replyOf(choices json.RawMessage, id, model string, r *actors.Receipt) ([]byte, error) {
	var cs []api.ChatChoice
	if err := json.Unmarshal(choices, &cs); err != nil {
		return nil, err
	}
	out := response{Candidates: make([]candidate, 0, len(cs)), UsageMetadata: usageOf(r), ModelVersion: model, ResponseID: id}
	for _, ch := range cs {
		var parts []outPart
		if t := ch.Message.Reasoning; t != "" {
			parts = append(parts, outPart{Text: &t, Thought: true})
		}
		if t := api.ChatText(ch.Message.Content); t != "" {
			parts = append(parts, outPart{Text: &t})
		}
		for _, tc := range ch.Message.ToolCalls {
			parts = append(parts, outPart{FunctionCall: &functionCall{ID: tc.ID, Name: tc.Function.Name, Args: argsOf(tc.Function.Arguments)}})
		}
		if len(parts) == 0 {
			empty := ""
			parts = append(parts, outPart{Text: &empty})
		}
		finish := ch.FinishReason
		if finish == "" {
			finish = r.FinishReason
		}
		out.Candidates = append(out.Candidates, candidate{Content: outContent{Role: "model", Parts: parts},
			FinishReason: finishReason(finish), Index: ch.Index})
	}
	return plainjson.Marshal(out)
}
