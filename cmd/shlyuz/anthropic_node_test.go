package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// anthropicNodeSDK is Anthropic's TypeScript SDK, pinned.
const anthropicNodeSDK = "@anthropic-ai/sdk@1.14.0"

type anthropicNodeReport struct {
	Models map[string]struct {
		Text, ID, Generation string
		Output               int64
		First                struct {
			Stop, Tool string
			Input      map[string]any
		}
		Second struct {
			Stop, Text string
			Output     int64
		}
		Events []string
		Count  int64
	}
	Errors map[string]struct {
		Status    int
		Type, Cls string
	}
}

// TestAnthropicNodeSDK drives @anthropic-ai/sdk through /api/v1/messages on
// the five protocols: a reply, a streamed tool-use round trip, count_tokens
// and typed errors.
func TestAnthropicNodeSDK(t *testing.T) {
	modules := npmInstall(t, anthropicNodeSDK)
	_, key := account(t, h.base, 10_000_000, nil)
	models, _ := json.Marshal(messagesModels)
	raw := runNode(t, modules, "anthropic_sdk.mjs", "SHLYUZ_BASE="+h.base, "SHLYUZ_KEY="+key, "SHLYUZ_MODELS="+string(models))
	var r anthropicNodeReport
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	wantEvents := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	for _, model := range messagesModels {
		m, ok := r.Models[model]
		if !ok {
			t.Fatalf("%s: no report", model)
		}
		if m.Text != "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7" || m.Output != 8 || m.ID != m.Generation || !strings.HasPrefix(m.ID, "gen-") {
			t.Errorf("%s: reply %+v", model, m)
		}
		if m.First.Stop != "tool_use" || m.First.Tool != "get_weather" || m.First.Input == nil {
			t.Errorf("%s: first turn %+v", model, m.First)
		}
		if m.Second.Stop != "end_turn" || !strings.HasPrefix(m.Second.Text, "tok0") || m.Second.Output != 8 {
			t.Errorf("%s: second turn %+v", model, m.Second)
		}
		var seen []string
		for _, e := range m.Events {
			if e != "ping" {
				seen = append(seen, e)
			}
		}
		if !reflect.DeepEqual(seen, wantEvents) {
			t.Errorf("%s: events %v", model, m.Events)
		}
		if m.Count < 100 || m.Count > 1000 {
			t.Errorf("%s: count_tokens %d", model, m.Count)
		}
	}
	if e := r.Errors["bad key"]; e.Status != 401 || e.Type != "authentication_error" || e.Cls != "AuthenticationError" {
		t.Errorf("bad key: %+v", e)
	}
	if e := r.Errors["unknown model"]; e.Status != 404 || e.Type != "not_found_error" || e.Cls != "NotFoundError" {
		t.Errorf("unknown model: %+v", e)
	}
}
