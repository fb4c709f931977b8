package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
)

// The official Anthropic SDK, changed only in its base URL and key.
func anthropicClient(key string) anthropic.Client {
	return anthropic.NewClient(aoption.WithBaseURL(h.base+"/api"), aoption.WithAPIKey(key), aoption.WithMaxRetries(0))
}

// messagesModels are served natively (claude/) and translated (the others).
var messagesModels = []string{"claude/model", "test/model", "gemini/model", "yagpt/model", "giga/model"}

// checkDebit checks that the generation under the reply's X-Generation-Id
// cost what the balance lost, at the test models' prices.
func checkDebit(t *testing.T, key string, resp *http.Response, before int64) generationView {
	t.Helper()
	id := resp.Header.Get("X-Generation-Id")
	if id == "" {
		t.Fatal("no X-Generation-Id")
	}
	var g generationView
	waitFor(t, 10*time.Second, "the generation record", func() bool {
		return call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g) == 200
	})
	want := promptCredits*g.Data.TokensPrompt + completionCredits*g.Data.TokensCompletion
	if g.Data.Credits != want || g.Data.Credits <= 0 {
		t.Fatalf("generation credits %d, want %d (%+v)", g.Data.Credits, want, g.Data)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; before-after != g.Data.Credits {
		t.Fatalf("debited %d, generation says %d", before-after, g.Data.Credits)
	}
	return g
}

func TestAnthropicSDKMessages(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := anthropicClient(key)
	ctx := context.Background()
	for _, model := range messagesModels {
		t.Run(model, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			var resp *http.Response
			msg, err := client.Messages.New(ctx, anthropic.MessageNewParams{
				Model: anthropic.Model(model), MaxTokens: 100,
				System:   []anthropic.TextBlockParam{{Text: "Be brief."}},
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello!"))},
			}, aoption.WithResponseInto(&resp), aoption.WithHeader("Anthropic-Beta", "shlyuz-test-beta"))
			if err != nil {
				t.Fatal(err)
			}
			// An Anthropic upstream gets the body as is, with the client's beta header.
			if native := h.fake.LastHeader().Get("Anthropic-Beta") == "shlyuz-test-beta"; native != (model == "claude/model") {
				t.Fatalf("anthropic-beta forwarded: %v", native)
			}
			if len(msg.Content) != 1 || msg.Content[0].Text != "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7" ||
				msg.StopReason != anthropic.StopReasonEndTurn || msg.Usage.OutputTokens != 8 || msg.Model != anthropic.Model(model) {
				t.Fatalf("message %+v", msg)
			}
			g := checkDebit(t, key, resp, before)
			// The fake counts a quarter of the text's characters: "Be brief." and
			// "Hello!" are 15, so 3 prompt tokens; 3*10 + 8*20 = 190 credits.
			if msg.ID != g.Data.ID || g.Data.TokensCompletion != 8 || g.Data.TokensPrompt != 3 ||
				msg.Usage.InputTokens+msg.Usage.CacheReadInputTokens != 3 || g.Data.Credits != 190 {
				t.Fatalf("message %s usage %+v, generation %+v", msg.ID, msg.Usage, g.Data)
			}
		})
	}
}

// A tool-use round trip, streamed: the model calls the tool, the client
// answers with its result, the model replies in text.
func TestAnthropicSDKStreamingToolRoundTrip(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := anthropicClient(key)
	tool := anthropic.ToolParam{Name: "get_weather", Description: anthropic.String("The weather in a city."),
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}}}
	for _, model := range messagesModels {
		t.Run(model, func(t *testing.T) {
			params := anthropic.MessageNewParams{
				Model: anthropic.Model(model), MaxTokens: 200,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
				Tools:    []anthropic.ToolUnionParam{{OfTool: &tool}},
			}
			first := streamMessage(t, client, params)
			if first.StopReason != anthropic.StopReasonToolUse || len(first.Content) != 1 || first.Content[0].Type != "tool_use" ||
				first.Content[0].Name != "get_weather" || !strings.Contains(string(first.Content[0].Input), "{") {
				t.Fatalf("first turn %+v", first)
			}
			params.Messages = append(params.Messages, first.ToParam(),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(first.Content[0].ID, "Sunny, 21 °C", false)))
			before := balance(t, h.base, key).Data.TotalCredits
			var resp *http.Response
			second := streamMessage(t, client, params, aoption.WithResponseInto(&resp))
			if second.StopReason != anthropic.StopReasonEndTurn || len(second.Content) != 1 || !strings.HasPrefix(second.Content[0].Text, "tok0") ||
				second.Usage.OutputTokens != 8 || second.Usage.InputTokens < 1 {
				t.Fatalf("second turn %+v", second)
			}
			checkDebit(t, key, resp, before)
		})
	}
}

func streamMessage(t *testing.T, client anthropic.Client, params anthropic.MessageNewParams, opts ...aoption.RequestOption) anthropic.Message {
	t.Helper()
	stream := client.Messages.NewStreaming(context.Background(), params, opts...)
	var acc anthropic.Message
	for stream.Next() {
		if err := acc.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	return acc
}

func TestAnthropicSDKCountTokensAndErrors(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := anthropicClient(key)
	ctx := context.Background()
	n, err := client.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{
		Model:    "claude/model",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(strings.Repeat("word ", 400)))},
	})
	if err != nil || n.InputTokens < 100 || n.InputTokens > 1000 {
		t.Fatalf("count %+v %v", n, err)
	}
	for _, tc := range []struct {
		name   string
		client anthropic.Client
		model  string
		max    int64
		status int
		typ    string
	}{
		{"bad key", anthropicClient("sk-shz-v1-" + strings.Repeat("0", 64)), "claude/model", 10, 401, "authentication_error"},
		{"unknown model", client, "nope/nope", 10, 404, "not_found_error"},
		{"no money", anthropicClient(mustKey(t, 0)), "claude/model", 10, 402, "billing_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.client.Messages.New(ctx, anthropic.MessageNewParams{Model: anthropic.Model(tc.model), MaxTokens: tc.max,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("x"))}})
			var apierr *anthropic.Error
			if !errors.As(err, &apierr) || apierr.StatusCode != tc.status || string(apierr.Type()) != tc.typ {
				t.Fatalf("%v", err)
			}
		})
	}
}

func mustKey(t *testing.T, credits int64) string {
	_, key := account(t, h.base, credits, nil)
	return key
}
