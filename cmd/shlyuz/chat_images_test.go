package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// An image-only model asked through chat is served through the image path:
// the picture in choices[0].message.images, billed as one image.
func TestImageOnlyModelThroughChat(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := sdkClient(key)
	params := openai.ChatCompletionNewParams{Model: "img/small",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You draw."), openai.UserMessage("A red cat")}}
	type image struct {
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	checkImage := func(t *testing.T, raw string) {
		var imgs []image
		if err := json.Unmarshal([]byte(raw), &imgs); err != nil || len(imgs) != 1 {
			t.Fatalf("images %s: %v", raw, err)
		}
		data, ok := strings.CutPrefix(imgs[0].ImageURL.URL, "data:image/png;base64,")
		if b, err := base64.StdEncoding.DecodeString(data); !ok || err != nil || len(b) < 8 || string(b[1:4]) != "PNG" {
			t.Fatalf("not a PNG data URL: %.60s", imgs[0].ImageURL.URL)
		}
	}

	t.Run("plain", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		var resp *http.Response
		r, err := client.Chat.Completions.New(context.Background(), params, option.WithResponseInto(&resp))
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, r.Choices[0].Message.JSON.ExtraFields["images"].Raw())
		var u struct {
			Credits int64 `json:"credits"`
		}
		_ = json.Unmarshal([]byte(r.Usage.RawJSON()), &u)
		if u.Credits != creditsPerTestImage || before-balance(t, h.base, key).Data.TotalCredits != creditsPerTestImage ||
			r.ID != resp.Header.Get("X-Generation-Id") {
			t.Fatalf("credits %d, id %s", u.Credits, r.ID)
		}
	})

	t.Run("stream", func(t *testing.T) {
		stream := client.Chat.Completions.NewStreaming(context.Background(), params)
		var images string
		var credits int64
		for stream.Next() {
			ch := stream.Current()
			if len(ch.Choices) > 0 {
				if f, ok := ch.Choices[0].Delta.JSON.ExtraFields["images"]; ok {
					images = f.Raw()
				}
			}
			var u struct {
				Credits int64 `json:"credits"`
			}
			if json.Unmarshal([]byte(ch.Usage.RawJSON()), &u) == nil && u.Credits > 0 {
				credits = u.Credits
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		checkImage(t, images)
		if credits != creditsPerTestImage {
			t.Fatalf("credits %d", credits)
		}
	})

	t.Run("no prompt", func(t *testing.T) {
		var e apiError
		st := call(t, h.base, "POST", "/api/v1/chat/completions", key, map[string]any{"model": "img/small",
			"messages": []map[string]string{{"role": "system", "content": "x"}}}, &e)
		if st != 400 || e.Error.Param == nil || *e.Error.Param != "messages" {
			t.Fatalf("%d %+v", st, e.Error)
		}
	})
}
