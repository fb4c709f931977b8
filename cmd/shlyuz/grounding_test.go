package main

import (
	"encoding/json"
	"testing"
)

// Grounding with Google Search through the Gemini API is charged Google's
// fee as the reply's groundingMetadata shows it: per grounded prompt on
// Gemini 2.x ($35 per 1,000, LiteLLM's search_context_cost_per_query 0.035:
// 350,000 credits at 100 RUB per USD), per search query on Gemini 3 ($14
// per 1,000 queries, 0.014: 140,000 credits each; the fake runs two). A
// model without a search price, and Maps grounding, are refused unsent.
func TestGeminiGroundingIsCharged(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	body := func(tool string) map[string]any {
		b := map[string]any{"contents": []map[string]any{{"role": "user", "parts": []map[string]any{{"text": "Who won yesterday?"}}}},
			"generationConfig": map[string]any{"maxOutputTokens": 50}}
		if tool != "" { // none: the :online variant asks for Google's search
			b["tools"] = []map[string]any{{tool: map[string]any{}}}
		}
		return b
	}
	for _, tc := range []struct {
		model, tool string
		status      int
		fee         int64
	}{
		{"gemini/grounded", "googleSearch", 200, 350_000},
		{"gemini/gemini-3-grounded", "googleSearch", 200, 2 * 140_000},
		{"gemini/model", "googleSearch", 400, 0},
		{"gemini/grounded", "googleMaps", 400, 0},
		{"gemini/grounded:online", "", 200, 350_000},
		{"gemini/gemini-3-grounded:online", "", 200, 2 * 140_000},
		{"gemini/model:online", "", 400, 0},
	} {
		t.Run(tc.model+" "+tc.tool, func(t *testing.T) {
			before := balance(t, h.base, key).Data.TotalCredits
			resp, raw := geminiPost(t, "/api/v1beta/models/"+tc.model+":generateContent", key, body(tc.tool))
			if resp.StatusCode != tc.status {
				t.Fatalf("%d %s", resp.StatusCode, raw)
			}
			charged := before - balance(t, h.base, key).Data.TotalCredits
			if tc.status != 200 {
				if charged != 0 {
					t.Fatalf("charged %d for a refused request", charged)
				}
				return
			}
			var g geminiResponse
			if err := json.Unmarshal(raw, &g); err != nil || g.UsageMetadata == nil {
				t.Fatalf("%v: %s", err, raw)
			}
			want := promptCredits*g.UsageMetadata.PromptTokenCount + completionCredits*g.UsageMetadata.CandidatesTokenCount + tc.fee
			if charged != want {
				t.Fatalf("charged %d, want %d (%s)", charged, want, raw)
			}
		})
	}
}
