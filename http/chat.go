package http

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
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
}

func newUsage(r *actors.Receipt) *usageOut {
	return &usageOut{PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens,
		TotalTokens: r.Usage.TotalTokens, Credits: r.Credits, CreditsDetails: r.Details,
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
func (s *Server) defaultModalities(call *actors.ChatCall) {
	if _, set := call.Fields["modalities"]; set {
		return
	}
	m, ok := s.gw.Catalog().Get(call.Models[0])
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
func (s *Server) chatCompletions(c *fiber.Ctx) error {
	return s.ChatAs(c, c.Locals(localKeyHash).(string))
}

// ChatAs answers the chat request in c's body as the key with the hash, on
// the API's one path (reservation, upstream, settlement): the web chat's way in.
func (s *Server) ChatAs(c *fiber.Ctx, keyHash string) error {
	call, perr := parseChat(c.Body())
	if perr != nil {
		return perr
	}
	s.defaultModalities(call)
	call.KeyHash = keyHash
	call.GenerationID = newID("gen-")
	c.Set("X-Generation-Id", call.GenerationID)
	if call.Stream {
		return s.streamChat(c, call)
	}
	resp, receipt, err := s.gw.Complete(c.UserContext(), call)
	if err != nil {
		return err
	}
	setDecidedMaxTokens(c, receipt.MaxTokens)
	return c.JSON(&completion{
		ID: call.GenerationID, Object: "chat.completion", Created: resp.Created, Model: receipt.Model,
		Choices: resp.Choices, Usage: newUsage(receipt), SystemFingerprint: resp.SystemFingerprint,
	})
}

// MaxTokensHeader tells a client that set no max_tokens the completion
// ceiling the gateway sent upstream: what the key's ceiling, the balance and
// the model's output limit allow, whichever is least.
const MaxTokensHeader = "X-Shlyuz-Max-Tokens"

func setDecidedMaxTokens(c *fiber.Ctx, n int64) {
	if n > 0 {
		c.Set(MaxTokensHeader, strconv.FormatInt(n, 10))
	}
}

type streamStep struct {
	ev  shlyuz.StreamEvent
	err error
}

func (s *Server) streamChat(c *fiber.Ctx, call *actors.ChatCall) error {
	st, err := s.gw.OpenStream(c.UserContext(), call)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	setDecidedMaxTokens(c, st.MaxTokens())
	id, model, heartbeat := call.GenerationID, st.Model(), s.opts.Heartbeat
	s.streams.Add(1)
	log := s.log
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer s.streams.Done()
		defer func() { // the writer runs outside the handler, beyond Fiber's recover
			if r := recover(); r != nil {
				log.Error("stream writer panicked", "generation", id, "panic", r)
				st.Finish(fmt.Errorf("stream writer panicked: %v", r))
			}
		}()
		steps := make(chan streamStep, 64)
		stop := make(chan struct{})
		go func() {
			defer func() { // an adapter's bug ends this stream, not the gateway
				if r := recover(); r != nil {
					log.Error("stream reader panicked", "generation", id, "panic", r)
					select {
					case steps <- streamStep{err: shlyuz.ErrUpstream("The upstream's stream could not be read.")}:
					case <-stop:
					}
				}
			}()
			for {
				ev, err := st.Next()
				select {
				case steps <- streamStep{ev, err}:
				case <-stop:
					return
				}
				if err != nil {
					return
				}
			}
		}()
		outcome := pump(w, steps, heartbeat)
		close(stop)
		receipt := st.Finish(outcome)
		if outcome == nil && receipt != nil && receipt.Err != nil {
			outcome = receipt.Err // durable settlement refused: no usage, no [DONE]
		}
		switch {
		case outcome == nil:
			writeEvent(w, &usageChunk{ID: id, Object: "chat.completion.chunk", Created: time.Now().Unix(),
				Model: model, Choices: []struct{}{}, Usage: newUsage(receipt)})
			_, _ = w.WriteString("data: [DONE]\n\n")
		case !errors.Is(outcome, actors.ErrClientGone):
			writeEvent(w, &errorChunk{ID: id, Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: model,
				Error: shlyuz.AsError(outcome), Choices: []errorChoice{{FinishReason: "error"}}})
		}
		_ = w.Flush()
	})
	return nil
}

// pump writes the upstream's events until the end, a failure or a gone client,
// with a comment heartbeat whenever the stream is idle.
func pump(w *bufio.Writer, steps <-chan streamStep, heartbeat time.Duration) error {
	idle := time.NewTimer(heartbeat)
	defer idle.Stop()
	for {
		select {
		case st := <-steps:
			if st.err != nil {
				if errors.Is(st.err, io.EOF) {
					return nil
				}
				return st.err
			}
			if st.ev.Data == nil {
				continue
			}
			_, _ = w.WriteString("data: ")
			_, _ = w.Write(st.ev.Data)
			_, _ = w.WriteString("\n\n")
			if len(steps) > 0 {
				continue // more is waiting: flush once for the lot
			}
			if err := w.Flush(); err != nil {
				return actors.ErrClientGone
			}
			idle.Reset(heartbeat)
		case <-idle.C:
			_, _ = w.WriteString(": keep-alive\n\n")
			if err := w.Flush(); err != nil {
				return actors.ErrClientGone
			}
			idle.Reset(heartbeat)
		}
	}
}

func writeEvent(w *bufio.Writer, v any) {
	b, _ := json.Marshal(v)
	_, _ = w.WriteString("data: ")
	_, _ = w.Write(b)
	_, _ = w.WriteString("\n\n")
}
