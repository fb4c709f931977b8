package openai

import (
	"bufio"
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/http/media"
)

// chatImage is an image of a chat reply, OpenRouter's way: message.images.
type chatImage struct {
	Type     string `json:"type"` // image_url
	ImageURL struct {
		URL string `json:"url"` // a data URL
	} `json:"image_url"`
}

type imageChoice struct {
	Index        int       `json:"index"`
	Message      *imageMsg `json:"message,omitempty"`
	Delta        *imageMsg `json:"delta,omitempty"`
	FinishReason string    `json:"finish_reason"`
	Logprobs     *struct{} `json:"logprobs"`
}

type imageMsg struct {
	Role    string      `json:"role"`
	Content string      `json:"content"`
	Images  []chatImage `json:"images"`
}

// lastUserText is the text of the conversation's last user message: the
// prompt of an image-only model asked through chat.
func lastUserText(messages json.RawMessage) string {
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(messages, &msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return strings.TrimSpace(anthropic.ChatText(msgs[i].Content))
		}
	}
	return ""
}

// chatImages serves a chat request for an image-only model (one priced per
// image, as FLUX, Imagen and DALL·E are) through the image path: the last
// user message is the prompt, the images come back in
// choices[0].message.images (or one stream chunk's delta.images), billed as
// images under the chat call's generation id.
func (s *server) chatImages(c *fiber.Ctx, call *actors.ChatCall) error {
	in := &media.ImageInput{Model: call.Models[0], Prompt: lastUserText(call.Fields["messages"])}
	af := call.AllowFallbacks
	in.Provider = &api.ProviderPrefs{Order: call.Order, AllowFallbacks: &af, Only: call.Only, Ignore: call.Ignore, Sort: call.Sort}
	var ic struct {
		AspectRatio string `json:"aspect_ratio"`
	}
	if v := call.Fields["image_config"]; len(v) > 0 {
		_ = json.Unmarshal(v, &ic)
		in.AspectRatio = ic.AspectRatio
	}
	m, opt, n, e := media.ImageCall(s.Gw.Catalog(), in)
	if e != nil {
		if e.Param != nil && *e.Param == "prompt" {
			return shlyuz.ErrInvalidValue("messages", "The model %q makes images: the last user message must say what to draw.", in.Model)
		}
		return e
	}
	out, u, err := media.MakeImages(s.Server, c, call.GenerationID, call.KeyHash, in, m, opt, n)
	if err != nil {
		return err
	}
	msg := &imageMsg{Role: "assistant", Content: "", Images: make([]chatImage, len(out))}
	for i, img := range out {
		msg.Images[i].Type = "image_url"
		msg.Images[i].ImageURL.URL = "data:" + img.MediaType + ";base64," + img.B64JSON
	}
	usage := &usageOut{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens, Credits: u.Credits}
	now := time.Now().Unix()
	if !call.Stream {
		choices, _ := json.Marshal([]imageChoice{{Message: msg, FinishReason: "stop"}})
		return c.JSON(&completion{ID: call.GenerationID, Object: "chat.completion", Created: now, Model: m.ID, Choices: choices, Usage: usage})
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	choices, _ := json.Marshal([]imageChoice{{Delta: msg, FinishReason: "stop"}})
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		writeEvent(w, &completion{ID: call.GenerationID, Object: "chat.completion.chunk", Created: now, Model: m.ID, Choices: choices})
		writeEvent(w, &usageChunk{ID: call.GenerationID, Object: "chat.completion.chunk", Created: now, Model: m.ID, Choices: []struct{}{}, Usage: usage})
		_, _ = w.WriteString("data: [DONE]\n\n")
		_ = w.Flush()
	})
	return nil
}
