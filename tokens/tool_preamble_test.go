package tokens

import (
	"encoding/json"
	"testing"
)

// TestReserveForKeepsTheMakersToolPreamble: a request with tools is held
// its definitions and the tool-use instructions the model's maker adds:
// the 346 tokens of system prompt Anthropic documents for Claude, the 12
// of OpenAI's cookbook (num_tokens_for_tools' func_end) for its models,
// none for Gemini (Google documents none), and Anthropic's 346 for a model
// whose maker's template is unknown. Without tools nothing is added.
func TestReserveForKeepsTheMakersToolPreamble(t *testing.T) {
	tools := json.RawMessage(`[{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}}]`)
	with, without := EstimateDefinitions(tools), EstimateDefinitions(nil)
	gemini := with.ReserveFor("google/gemini-2.5-flash")
	if with.Reserve != gemini+346 {
		t.Fatalf("Reserve %d, want the definitions' %d and the most any maker adds, 346", with.Reserve, gemini)
	}
	for _, tc := range []struct {
		model    string
		preamble int64
	}{
		{"anthropic/claude-sonnet-4.5", 346},
		{"claude-opus-4-8", 346},
		{"openai/gpt-5", 12},
		{"gpt-4o-mini", 12},
		{"google/gemini-2.5-flash", 0},
		{"gemini-3-pro-preview", 0},
		{"google/gemma-3-27b-it", 346},
		{"deepseek/deepseek-chat", 346},
		{"sber/gigachat-2-max", 346},
	} {
		got := with.ReserveFor(tc.model)
		if tc.model == "sber/gigachat-2-max" {
			got -= with.Saved // held a token a byte besides
		}
		if got != gemini+tc.preamble {
			t.Errorf("%s: tools reserve %d, want the definitions' %d and a preamble of %d", tc.model, got, gemini, tc.preamble)
		}
		if r := without.ReserveFor(tc.model); r != 1 {
			t.Errorf("%s: no tools reserve %d, want the least, 1", tc.model, r)
		}
	}
}
