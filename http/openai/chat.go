package openai

import (
	"bufio"
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// usageOut is a reply's usage: OpenAI's, with what was debited (credits)
// and how it adds up (credits_details, whose parts sum to credits).
type usageOut struct {
	PromptTokens            int64                           `json:"prompt_tokens"`
	CompletionTokens        int64                           `json:"completion_tokens"`
	TotalTokens             int64                           `json:"total_tokens"`
	PromptTokensDetails     *shlyuz.PromptTokensDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails *shlyuz.CompletionTokensDetails `json:"completion_tokens_details"`
	Credits                 shlyuz.Credits                  `json:"credits"`
	CreditsDetails          shlyuz.CreditsDetails           `json:"credits_details"`
	Cost                    shlyuz.Credits                  `json:"cost"` // OpenRouter's name of the charge, in credits as every OpenRouter-named figure
}

func newUsage(r *actors.Receipt) *usageOut {
	return &usageOut{PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens,
		TotalTokens: r.Usage.TotalTokens, Credits: r.Credits, Cost: r.Credits, CreditsDetails: r.Details,
		PromptTokensDetails: r.Usage.PromptDetails(), CompletionTokensDetails: r.Usage.CompletionDetails()}
}

type completion struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	Choices           json.RawMessage `json:"choices"`
	Usage             *usageOut       `json:"usage"`
	SystemFingerprint string          `json:"system_fingerprint,omitempty"`
}

type usageChunk struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices []struct{} `json:"choices"`
	Usage   *usageOut  `json:"usage"`
}

type errorChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Error   *shlyuz.Error `json:"error"`
	Choices []errorChoice `json:"choices"`
}

type errorChoice struct {
	Index        int      `json:"index"`
	Delta        struct{} `json:"delta"`
	FinishReason string   `json:"finish_reason"`
}

// defaultModalities asks an image-output model for its image when the client
// did not say which modalities it wants: without "modalities" such models
// answer text only (the most common surprise of OpenRouter's users).
func (s *server) defaultModalities(call *actors.ChatCall) {
	if _, set := call.Fields["modalities"]; set {
		return
	}
	m, ok := s.Gw.Catalog().Get(call.Models[0])
	if !ok || !m.Outputs("image") || m.Image != nil {
		return
	}
	if m.Outputs("text") {
		call.Fields["modalities"] = json.RawMessage(`["image","text"]`)
	} else {
		call.Fields["modalities"] = json.RawMessage(`["image"]`)
	}
}

// chatCompletions is POST /api/v1/chat/completions.
func (s *server) chatCompletions(c *fiber.Ctx) error {
	return s.ChatAs(c, c.Locals(api.LocalKeyHash).(string))
}

// ChatAs answers the chat request in c's body as the key with the hash, on
// the API's one path (reservation, upstream, settlement): the web chat's way in.
func (s *server) ChatAs(c *fiber.Ctx, keyHash string) error {
	call, perr := ParseChat(api.OwnedBody(c)) // the call keeps spans of the body
	if perr != nil {
		return perr
	}
	call.KeyHash = keyHash
	call.GenerationID = api.NewID("gen-")
	lendBody(c, call)
	c.Set("X-Generation-Id", call.GenerationID)
	cat := s.Gw.Catalog()
	if m, ok := cat.Get(call.Models[0]); ok {
		api.AnnounceDeprecation(c, m, cat.Now)
		if m.Image != nil {
			return s.chatImages(c, call) // an image-only model: the image path (chat_images.go)
		}
	}
	s.defaultModalities(call)
	if call.Stream {
		return s.streamChat(c, call)
	}
	resp, receipt, err := s.Gw.Complete(c.UserContext(), call)
	if err != nil {
		return err
	}
	api.SetDecidedMaxTokens(c, receipt.MaxTokens)
	err = sendCompletion(c, call.GenerationID, resp, receipt)
	api.BodyDone(c) // the upstream call and the reply are done with the call's spans of the body
	return err
}

func (s *server) streamChat(c *fiber.Ctx, call *actors.ChatCall) error {
	st, err := s.Gw.OpenStream(c.UserContext(), call)
	if err != nil {
		return err
	}
	s.ServeStream(c, st, call.GenerationID, &chatSink{id: call.GenerationID, model: st.Model()})
	return nil
}

// chatSink writes OpenAI's chat.completion.chunk stream.
type chatSink struct{ id, model string }

func (cs *chatSink) Event(w *bufio.Writer, ev *shlyuz.StreamEvent) {
	if ev.Data == nil {
		return
	}
	_, _ = w.WriteString("data: ")
	_, _ = w.Write(ev.Data)
	_, _ = w.WriteString("\n\n")
}

func (cs *chatSink) KeepAlive(w *bufio.Writer) { _, _ = w.WriteString(": keep-alive\n\n") }

func (cs *chatSink) End(w *bufio.Writer, outcome error, receipt *actors.Receipt) {
	if outcome == nil {
		writeEvent(w, &usageChunk{ID: cs.id, Object: "chat.completion.chunk", Created: time.Now().Unix(),
			Model: cs.model, Choices: []struct{}{}, Usage: newUsage(receipt)})
		_, _ = w.WriteString("data: [DONE]\n\n")
		return
	}
	writeEvent(w, &errorChunk{ID: cs.id, Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: cs.model,
		Error: shlyuz.AsError(outcome), Choices: []errorChoice{{FinishReason: "error"}}})
}

func writeEvent(w *bufio.Writer, v any) {
	b, _ := json.Marshal(v)
	_, _ = w.WriteString("data: ")
	_, _ = w.Write(b)
	_, _ = w.WriteString("\n\n")
}
