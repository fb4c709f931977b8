package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The official SDK, changed only in its base URL and key.
func sdkClient(key string) openai.Client {
	return openai.NewClient(option.WithBaseURL(h.base+"/api/v1"), option.WithAPIKey(key))
}

func TestOpenAISDK(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	client := sdkClient(key)
	ctx := context.Background()

	t.Run("models", func(t *testing.T) {
		page, err := client.Models.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range page.Data {
			found = found || m.ID == "test/model"
		}
		if len(page.Data) < 300 || !found {
			t.Fatalf("%d models, test/model listed: %v", len(page.Data), found)
		}
	})

	t.Run("chat", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:    "test/model",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Hello!")},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Choices) != 1 || resp.Choices[0].Message.Content == "" || resp.Usage.CompletionTokens != 8 {
			t.Fatalf("reply %+v", resp)
		}
		var u struct {
			Credits int64 `json:"credits"`
		}
		if err := json.Unmarshal([]byte(resp.Usage.RawJSON()), &u); err != nil {
			t.Fatal(err)
		}
		want := promptCredits*resp.Usage.PromptTokens + completionCredits*resp.Usage.CompletionTokens
		if u.Credits != want || before-balance(t, h.base, key).Data.TotalCredits != want {
			t.Fatalf("credits %d, want %d", u.Credits, want)
		}
	})

	t.Run("image input", func(t *testing.T) {
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: "test/model",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
				openai.TextContentPart("What is in this picture?"),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: onePixelPNG}),
			})},
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage.PromptTokens < 85 { // the fake counts 85 a picture: the part reached it
			t.Fatalf("prompt tokens %d", resp.Usage.PromptTokens)
		}
		if !strings.Contains(string(h.fake.LastRequest()), onePixelPNG) {
			t.Fatalf("the image did not reach the upstream")
		}
	})

	t.Run("stream", func(t *testing.T) {
		stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Model:         "test/model",
			Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Stream, please")},
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		})
		acc := openai.ChatCompletionAccumulator{}
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(acc.Choices[0].Message.Content, "tok0") || acc.Usage.CompletionTokens != 8 {
			t.Fatalf("accumulated %q, usage %+v", acc.Choices[0].Message.Content, acc.Usage)
		}
	})

	t.Run("typed errors", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			client openai.Client
			model  string
			status int
			code   string
		}{
			{"bad key", sdkClient("sk-shz-v1-" + strings.Repeat("0", 64)), "test/model", 401, "invalid_api_key"},
			{"unknown model", client, "nope/nope", 404, "model_not_found"},
		} {
			_, err := tc.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
				Model: tc.model, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")},
			})
			var apierr *openai.Error
			if !errors.As(err, &apierr) || apierr.StatusCode != tc.status || apierr.Code != tc.code {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
	})
}

// onePixelPNG is a 1×1 grey PNG: an image part the gateway measures by its header.
const onePixelPNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAADklEQVR4nGJiAAQAAP//AAYAA/rQWa4AAAAASUVORK5CYII="
