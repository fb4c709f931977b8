package main

import (
	"testing"
)

// feeTestModels price Anthropic's web search tool: $10 per 1,000 searches
// (Anthropic's price list, https://docs.anthropic.com/en/docs/build-with-claude/tool-use/web-search-tool;
// litellm's search_context_cost_per_query is 0.01 for Claude).
const feeTestModels = `  - {id: "claude/search", name: "Claude with search", context_length: 200000, max_output_tokens: 4096, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "3", completion_usd_per_mtok: "15", web_search: "0.01"}}
  - {id: "test/gpt-4o-search-preview", name: "search model", context_length: 128000, max_output_tokens: 4096, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "1", completion_usd_per_mtok: "2", web_search: "0.035"}}
  - {id: "gemini/grounded", name: "Gemini grounded per prompt", context_length: 128000, max_output_tokens: 4096, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "1", completion_usd_per_mtok: "2", web_search: "0.035"}}
  - {id: "gemini/gemini-3-grounded", name: "Gemini grounded per query", context_length: 128000, max_output_tokens: 4096, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "1", completion_usd_per_mtok: "2", web_search: "0.014"}}
  - {id: "test/unpriced-search", name: "search model without a search price", context_length: 128000, max_output_tokens: 4096, input_modalities: [text], output_modalities: [text], usd: {prompt_usd_per_mtok: "1", completion_usd_per_mtok: "2"}}
`

// An Anthropic web search through /messages is charged its fee per search
// the upstream reports (server_tool_use.web_search_requests) on top of the
// tokens; a model without a search price, and a tool the gateway cannot
// price, are refused before anything goes upstream or is charged.
func TestAnthropicWebSearchIsCharged(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	search := []map[string]any{{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}}
	body := func(model string, tools []map[string]any) map[string]any {
		b := map[string]any{"model": model, "max_tokens": 50,
			"messages": []map[string]any{{"role": "user", "content": "What is new in Moscow today?"}}}
		if tools != nil {
			b["tools"] = tools
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
	}{
		{"no search price", body("claude/model", search), 400},
		{"code execution", body("claude/search", []map[string]any{{"type": "code_execution_20250522", "name": "code_execution"}}), 400},
		{":online without a search price", body("claude/model:online", nil), 400},
		{":online to an upstream of another protocol", body("test/model:online", nil), 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			var e apiError
			if st := call(t, h.base, "POST", "/api/v1/messages", key, tc.body, &e); st != tc.status {
				t.Fatalf("status %d: %+v", st, e)
			}
			if after := balance(t, h.base, key).Data.TotalCredits; after != before {
				t.Fatalf("charged %d for a refused request", before-after)
			}
		})
	}

	var r struct {
		ID    string `json:"id"`
		Usage struct {
			InputTokens   int64 `json:"input_tokens"`
			OutputTokens  int64 `json:"output_tokens"`
			ServerToolUse struct {
				WebSearchRequests int64 `json:"web_search_requests"`
			} `json:"server_tool_use"`
		} `json:"usage"`
	}
	// The tool as the client sent it; the :online variant, which asks for
	// Anthropic's own search; both at once (one search tool goes upstream).
	for _, b := range []map[string]any{body("claude/search", search), body("claude/search:online", nil), body("claude/search:online", search)} {
		before := balance(t, h.base, key).Data.TotalCredits
		resp := call(t, h.base, "POST", "/api/v1/messages", key, b, &r)
		if resp != 200 || r.Usage.ServerToolUse.WebSearchRequests != 1 {
			t.Fatalf("%s: status %d, usage %+v", b["model"], resp, r.Usage)
		}
		charged := before - balance(t, h.base, key).Data.TotalCredits
		// $3 and $15 per million tokens, $0.01 a search, at 100 RUB per USD and
		// 100,000 credits a ruble: 30 credits a prompt token, 150 a completion
		// token, 100,000 a search.
		want := r.Usage.InputTokens*30 + r.Usage.OutputTokens*150 + 100_000
		if charged != want {
			t.Fatalf("%s: charged %d, want %d (usage %+v)", b["model"], charged, want, r.Usage)
		}
	}
}
