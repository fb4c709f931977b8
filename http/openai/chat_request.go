package openai

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/internal/bodyroom"
	"github.com/shlyuz/shlyuz/tokens"
)

// ParseChat reads an OpenAI chat request: one validating pass that splits the
// top level into raw members (kept for the upstream, which gets them back byte
// for byte), then only the fields the gateway acts on. The call holds spans of
// body, which must stay unchanged for the call's life.
func ParseChat(body []byte) (*actors.ChatCall, *shlyuz.Error) {
	fields, err := api.SplitObject(body)
	if err != nil {
		return nil, shlyuz.ErrInvalidJSON(err.Error())
	}
	if fields == nil {
		return nil, shlyuz.ErrInvalidJSON("the body must be a JSON object")
	}
	call := &actors.ChatCall{Fields: fields, AllowFallbacks: true, Started: time.Now()}

	model, ferr := api.StringField(fields, "model")
	if ferr != nil {
		return nil, ferr
	}
	if model == "" {
		return nil, shlyuz.ErrMissingField("model")
	}
	call.Models = []string{model}
	if err := api.ReadRouting(fields, call); err != nil {
		return nil, err
	}
	if err := api.RefuseUnserved(fields); err != nil {
		return nil, err
	}
	if err := api.ReadWebSearch(fields, model, call); err != nil {
		return nil, err
	}
	includeReasoning(fields)

	msgs, ok := fields["messages"]
	if !ok || api.IsNull(msgs) {
		return nil, shlyuz.ErrMissingField("messages")
	}
	est, err := tokens.EstimatePrompt(msgs)
	if err != nil {
		return nil, shlyuz.ErrInvalidValue("messages", "messages must be an array of {role, content} objects: %s", err.Error())
	}
	if est.Reserve <= 16 && strings.TrimSpace(string(msgs)) == "[]" {
		return nil, shlyuz.ErrInvalidValue("messages", "messages must not be empty.")
	}
	if err := api.WithMedia(&est, msgs, "messages"); err != nil {
		return nil, err
	}
	// Tools and a response schema are rendered into the prompt: the reservation counts them.
	call.Prompt = api.WithDefinitions(est, tokens.EstimateDefinitions(fields["tools"], fields["functions"], fields["response_format"]))

	if err := api.BoolField(fields, "stream", &call.Stream); err != nil {
		return nil, err
	}
	for _, name := range []string{"max_completion_tokens", "max_tokens"} {
		n, set, err := api.IntField(fields, name)
		if err != nil {
			return nil, err
		}
		if !set {
			continue
		}
		if n < 1 {
			return nil, shlyuz.ErrInvalidValue(name, "%s must be at least 1.", name)
		}
		call.MaxTokens = n
		break
	}
	n, set, ferr := api.IntField(fields, "n")
	if ferr != nil {
		return nil, ferr
	}
	if set {
		if n < 1 || n > maxChoices {
			return nil, shlyuz.ErrInvalidValue("n", "n must be between 1 and %d.", maxChoices)
		}
		call.N = n // every choice is reserved for and billed
	}
	if err := checkImageOptions(fields); err != nil {
		return nil, err
	}
	return call, nil
}

// includeReasoning turns OpenRouter's legacy include_reasoning: true into
// reasoning: {"enabled": true} when the request does not set reasoning
// itself, so every adapter that thinks on reasoning honours it.
func includeReasoning(fields map[string]json.RawMessage) {
	if string(fields["include_reasoning"]) != "true" {
		return
	}
	if r, ok := fields["reasoning"]; ok && !api.IsNull(r) {
		return
	}
	fields["reasoning"] = json.RawMessage(`{"enabled":true}`)
}

// maxChoices bounds n as OpenAI does.
const maxChoices = 128

// imageSizes are the image_config.image_size values OpenRouter documents.
var imageSizes = []string{"512", "1K", "2K", "4K"}

// checkImageOptions refuses modalities and image_config (OpenRouter's image
// output options) an upstream could not take.
func checkImageOptions(fields map[string]json.RawMessage) *shlyuz.Error {
	_, modal := fields["modalities"]
	if _, image := fields["image_config"]; !modal && !image {
		return nil // nothing to check; the decoding targets below escape, made only when needed
	}
	var modalities []string
	if err := api.Field(fields, "modalities", &modalities); err != nil {
		return err
	}
	for _, m := range modalities {
		if m != "text" && m != "image" && m != "audio" {
			return shlyuz.ErrInvalidValue("modalities", "modalities takes text, image and audio, not %q.", m)
		}
	}
	var ic *struct {
		AspectRatio string `json:"aspect_ratio"`
		ImageSize   string `json:"image_size"`
	}
	if err := api.Field(fields, "image_config", &ic); err != nil {
		return err
	}
	if ic == nil {
		return nil
	}
	if w, h, ok := strings.Cut(ic.AspectRatio, ":"); ic.AspectRatio != "" && (!ok || !positive(w) || !positive(h)) {
		return shlyuz.ErrInvalidValue("image_config", "image_config.aspect_ratio is a ratio like 16:9, not %q.", ic.AspectRatio)
	}
	if ic.ImageSize != "" && !slices.Contains(imageSizes, ic.ImageSize) {
		return shlyuz.ErrInvalidValue("image_config", "image_config.image_size is one of %s, not %q.", strings.Join(imageSizes, ", "), ic.ImageSize)
	}
	return nil
}

func positive(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0
}

// lendBody lends the call the buffer of its body around the messages, when
// the body is the gateway's own buffer and the messages are large.
func lendBody(c *fiber.Ctx, call *actors.ChatCall) {
	msgs := call.Fields["messages"]
	if len(msgs) < api.LendMin || !api.OwnBody(c) {
		return
	}
	call.Room = bodyroom.New(c.Locals(api.LocalOwnBody).([]byte), "messages", msgs)
}
