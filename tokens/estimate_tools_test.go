package tokens

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// An agent's history carries whole patches in its tool calls' arguments and
// whole files in its tool results: the upstream counts them as prompt, so
// the reservation must too. The walk and encoding/json agree on the count,
// and it stays above what OpenAI's tokenizers count of the calls' text.
func TestPromptEstimateCountsToolCalls(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	patch := strings.Repeat("--- a/actors/chat.go\n+++ b/actors/chat.go\n@@ -1,3 +1,4 @@\n+\tcl.settled = true // once\n", 60)
	args, _ := json.Marshal(map[string]string{"patch": patch})
	call := map[string]any{"id": "call_8Hq2xYk0", "type": "function", "function": map[string]any{"name": "apply_patch", "arguments": string(args)}}
	for _, tc := range []struct {
		name string
		msgs []map[string]any
		text string // what the tokenizer counts: the calls' text
	}{
		{"a call's arguments", []map[string]any{
			{"role": "user", "content": "fix it"},
			{"role": "assistant", "content": nil, "tool_calls": []any{call}},
			{"role": "tool", "tool_call_id": "call_8Hq2xYk0", "content": "ok"},
		}, "call_8Hq2xYk0apply_patch" + string(args) + "call_8Hq2xYk0"},
		{"two calls", []map[string]any{
			{"role": "assistant", "content": "two", "tool_calls": []any{call, call}},
		}, strings.Repeat("call_8Hq2xYk0apply_patch"+string(args), 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(tc.msgs)
			walked, err := EstimatePrompt(raw)
			if err != nil {
				t.Fatal(err)
			}
			decoded, err := estimatePromptJSON(raw)
			if err != nil {
				t.Fatal(err)
			}
			if walked != decoded {
				t.Fatalf("walk %+v, encoding/json %+v", walked, decoded)
			}
			if n := int64(len(enc.Encode(tc.text, nil, nil))); walked.Reserve < n {
				t.Fatalf("reserve %d is below the tokenizer's %d for the calls alone", walked.Reserve, n)
			}
		})
	}
}
