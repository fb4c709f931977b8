package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

var responsesModels = []string{"test/model", "claude/model", "gemini/model", "yagpt/model", "giga/model"}

var weatherTool = responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
	Name: "get_weather", Description: openai.String("The weather in a city."), Strict: openai.Bool(false),
	Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}},
}}

func TestOpenAISDKResponses(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := sdkClient(key)
	ctx := context.Background()
	for _, model := range responsesModels {
		t.Run(model, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			var httpResp *http.Response
			r, err := client.Responses.New(ctx, responses.ResponseNewParams{
				Model: model, Instructions: openai.String("Be brief."), MaxOutputTokens: openai.Int(100),
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Hello!")},
			}, option.WithResponseInto(&httpResp))
			if err != nil {
				t.Fatal(err)
			}
			if r.OutputText() != "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7" || r.Status != responses.ResponseStatusCompleted ||
				r.Usage.OutputTokens != 8 || r.Model != model || strings.Contains(r.RawJSON(), `"store":true`) {
				t.Fatalf("response %+v", r)
			}
			g := checkDebit(t, key, httpResp, before)
			// The fake counts a quarter of the text's characters: "Be brief." and
			// "Hello!" are 15, so 3 prompt tokens; 3*10 + 8*20 = 190 credits.
			if r.ID != g.Data.ID || r.Usage.InputTokens != 3 || g.Data.TokensPrompt != 3 || g.Data.Credits != 190 {
				t.Fatalf("response %s usage %+v, generation %+v", r.ID, r.Usage, g.Data)
			}
		})
	}
}

// A function-calling round trip, streamed: the model calls the function,
// the client sends the call and its output back, the model answers.
func TestOpenAISDKResponsesStreamingFunctionRoundTrip(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := sdkClient(key)
	for _, model := range responsesModels {
		t.Run(model, func(t *testing.T) {
			input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("Weather in Paris?", responses.EasyInputMessageRoleUser)}
			first, types := streamResponse(t, client, responses.ResponseNewParams{Model: model,
				Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}, Tools: []responses.ToolUnionParam{weatherTool}})
			if len(first.Output) != 1 || first.Output[0].Type != "function_call" || first.Output[0].Name != "get_weather" ||
				!strings.HasPrefix(first.Output[0].Arguments.OfString, "{") {
				t.Fatalf("first %+v", first.Output)
			}
			for _, want := range []string{"response.created", "response.output_item.added", "response.function_call_arguments.delta", "response.completed"} {
				if !types[want] {
					t.Fatalf("no %s event in %v", want, types)
				}
			}
			fc := first.Output[0]
			input = append(input, responses.ResponseInputItemParamOfFunctionCall(fc.Arguments.OfString, fc.CallID, fc.Name),
				responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
					CallID: openai.String(fc.CallID), Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String("Sunny")}}})
			before := balance(t, h.base, key).Data.TotalCredits
			var httpResp *http.Response
			second, types := streamResponse(t, client, responses.ResponseNewParams{Model: model,
				Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}, Tools: []responses.ToolUnionParam{weatherTool}},
				option.WithResponseInto(&httpResp))
			if !strings.HasPrefix(second.OutputText(), "tok0") || second.Usage.OutputTokens != 8 || !types["response.output_text.delta"] {
				t.Fatalf("second %+v %v", second, types)
			}
			checkDebit(t, key, httpResp, before)
		})
	}
}

// streamResponse reads a Responses stream: the final Response and the event
// types seen, their sequence numbers checked to count up from 0.
func streamResponse(t *testing.T, client openai.Client, p responses.ResponseNewParams, opts ...option.RequestOption) (responses.Response, map[string]bool) {
	t.Helper()
	stream := client.Responses.NewStreaming(context.Background(), p, opts...)
	types := map[string]bool{}
	var final responses.Response
	var seq int64
	for stream.Next() {
		ev := stream.Current()
		if ev.SequenceNumber != seq {
			t.Fatalf("event %s has sequence_number %d, want %d", ev.Type, ev.SequenceNumber, seq)
		}
		seq++
		types[ev.Type] = true
		if ev.Type == "response.completed" {
			final = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	return final, types
}

func TestOpenAISDKResponsesRefusesState(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := sdkClient(key)
	in := responses.ResponseNewParamsInputUnion{OfString: openai.String("x")}
	for _, tc := range []struct {
		name  string
		p     responses.ResponseNewParams
		param string
	}{
		{"previous_response_id", responses.ResponseNewParams{Model: "test/model", Input: in, PreviousResponseID: openai.String("resp_1")}, "previous_response_id"},
		{"background", responses.ResponseNewParams{Model: "test/model", Input: in, Background: openai.Bool(true)}, "background"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := client.Responses.New(context.Background(), tc.p)
			var apierr *openai.Error
			if !errors.As(err, &apierr) || apierr.StatusCode != 400 || apierr.Param != tc.param {
				t.Fatalf("%v", err)
			}
		})
	}
}

// A hosted tool no upstream of the model has is left out visibly, not
// refused: a default Codex config carries web_search.
func TestOpenAISDKResponsesLeavesOutHostedTools(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	client := sdkClient(key)
	var raw *http.Response
	resp, err := client.Responses.New(context.Background(), responses.ResponseNewParams{Model: "test/model",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("x")},
		Tools: []responses.ToolUnionParam{{OfWebSearch: &responses.WebSearchToolParam{Type: responses.WebSearchToolTypeWebSearch}}}},
		option.WithResponseInto(&raw))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != "completed" || !strings.Contains(raw.Header.Get("X-Shlyuz-Left-Out"), "web_search") {
		t.Fatalf("status %q, left out %q", resp.Status, raw.Header.Get("X-Shlyuz-Left-Out"))
	}
}
