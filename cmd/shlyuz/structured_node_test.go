package main

import (
	"encoding/json"
	"testing"
)

// structuredNodeSDKs are LangChain's OpenAI chat model and the AI SDK's
// OpenAI-compatible provider, at the last versions that run on Node 20.
var structuredNodeSDKs = []string{"@langchain/openai@1.5.8", "@langchain/core@1.4.0", "ai@6.0.325", "@ai-sdk/openai-compatible@2.0.92", "zod@4.6.7"}

// TestStructuredOutputNodeSDKs: LangChain's withStructuredOutput (default,
// jsonSchema, functionCalling) and the AI SDK's generateObject and
// streamObject get objects their zod schema accepts through the fake, on
// an OpenAI upstream and translated to Anthropic's and Gemini's, and are
// billed.
func TestStructuredOutputNodeSDKs(t *testing.T) {
	modules := npmInstall(t, structuredNodeSDKs...)
	for _, model := range []string{"test/model", "claude/model", "gemini/model"} {
		t.Run(model, func(t *testing.T) {
			_, key := account(t, h.base, 10_000_000, nil)
			raw := runNode(t, modules, "structured_output.mjs", "SHLYUZ_BASE="+h.base, "SHLYUZ_KEY="+key, "SHLYUZ_MODEL="+model)
			var r map[string]struct {
				Object map[string]any
				Valid  bool
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatalf("%v: %s", err, raw)
			}
			for _, name := range []string{"langchain_default", "langchain_jsonSchema", "langchain_functionCalling", "ai_generateObject", "ai_streamObject"} {
				if c, ok := r[name]; !ok || !c.Valid {
					t.Errorf("%s: %+v", name, c)
				}
			}
			if after := balance(t, h.base, key).Data.TotalCredits; after >= 10_000_000 {
				t.Fatalf("not billed: %d", after)
			}
		})
	}
}
