package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
)

// TestRequestGolden checks the translation of a client body into the body sent upstream.
func TestRequestGolden(t *testing.T) {
	golden.Run(t, "request", ".json", func(t *testing.T, c golden.Case) []byte {
		req := golden.LoadRequest(t, c.Path, "public/model")
		body, clientUsage := buildBody(req, req.Stream)
		if !json.Valid(body) {
			t.Fatalf("built body is not valid JSON: %s", body)
		}
		// Gateway-only fields never go up; max_tokens and max_completion_tokens never both (when we set one).
		var sent map[string]json.RawMessage
		_ = json.Unmarshal(body, &sent)
		for k := range gatewayOnly {
			if _, ok := sent[k]; ok {
				t.Errorf("gateway-only field %q sent upstream", k)
			}
		}
		_, mt := sent["max_tokens"]
		_, mct := sent["max_completion_tokens"]
		if req.MaxTokens > 0 && mt && mct {
			t.Errorf("both max_tokens and max_completion_tokens sent")
		}
		// A reasoning model never gets max_tokens, nor what OpenAI refuses for it.
		if _, ok := sent["max_tokens"]; ok && shlyuz.OpenAIReasoningModel(req.UpstreamModel) {
			t.Errorf("max_tokens sent to the reasoning model %s", req.UpstreamModel)
		}
		// Every other client field OpenAI takes goes up byte for byte, and
		// none it does not take (OpenAI refuses them).
		for k, v := range req.Fields {
			switch k {
			case "model", "stream", "stream_options", "max_tokens", "max_completion_tokens":
				continue
			}
			if gatewayOnly[k] || !shlyuz.OpenAITakes(k, req.UpstreamModel, req.ExtraParameters) {
				if _, ok := sent[k]; ok {
					t.Errorf("%s sent to %s, which does not take it", k, req.UpstreamModel)
				}
				continue
			}
			if !bytes.Equal(sent[k], v) {
				t.Errorf("field %q: sent %s, client sent %s", k, sent[k], v)
			}
		}
		return fmt.Appendf(nil, "client_usage=%v\n%s\n", clientUsage, body)
	})
}

// clientAskedUsage are the stream cases whose client sent stream_options.include_usage=true.
var clientAskedUsage = map[string]bool{
	"openai_usage_client_asked": true,
	"tool_calls":                true,
	"escapes_in_strings":        true,
	"deepseek_reasoning":        true,
}

// TestStreamGolden feeds recorded upstream streams through ChatStream over
// HTTP and checks the events it emits.
func TestStreamGolden(t *testing.T) {
	golden.Run(t, "stream", ".sse", func(t *testing.T, c golden.Case) []byte {
		url := golden.Serve(t, c.Path, "text/event-stream")
		p := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: url + "/v1"})
		defer p.CloseIdleConnections()
		st, err := p.ChatStream(context.Background(), golden.ChatRequest("public/model", "m", true, clientAskedUsage[c.Name]))
		if err != nil {
			t.Fatal(err)
		}
		return golden.Events(t, fmt.Sprintf("client_usage=%v\n", clientAskedUsage[c.Name]), st, func(err error) string {
			e := golden.AsError(t, err)
			return fmt.Sprintf("error status=%d code=%s upstream_fault=%v message=%q\n", e.Status, e.Code, e.UpstreamFault, e.Message)
		})
	})
}
