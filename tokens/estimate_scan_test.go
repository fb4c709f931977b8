package tokens

import (
	"encoding/json"
	"testing"
)

// messagesSeeds are messages arrays the walk must read as encoding/json does,
// the odd ones included (keys in other cases, duplicates, nulls, wrong types).
var messagesSeeds = []string{
	`[{"role":"user","content":"hi"}]`, `[]`, ` [ ] `, `null`, ` null `, `[null]`, `[{}]`, `[{"content":null}]`,
	`[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"a b c"},{"type":"image_url","image_url":{"url":"data:,x"}}]}]`,
	`[{"Content":"hi"}]`, `[{"CONTENT":"hi","content":"there, friend"}]`, `[{"content":"a","content":null}]`,
	`[{"content":[null,{},{"type":null},{"type":"text","type":null,"text":"kept"}]}]`, `[{"content":[{"TYPE":"text","Text":"x"}]}]`,
	`[{"content":[{"type":"te\u0078t","text":"escaped type"}]}]`, `[{"c\u006fntent":"escaped key"}]`, `[{"contént":"x"}]`,
	`[{"content":[{"type":"text","text":5}]}]`, `[{"content":[{"type":"text","text":{"a":1}}]}]`,
	`[{"content":5}]`, `[{"content":{}}]`, `[{"content":true}]`, `[1]`, `["x"]`, `[[]]`, `{}`, `"x"`, `[{"content":[1]}]`,
	`[{"content":[{"type":5}]}]`, `[{"content":[{"type":"text","text":"\ud83d\ude80 \u0436"}]}]`, "[{\"content\":\"a\\\"b\"}]",
	`[{"content":"x"},]`, `[{"content":"x"}`, `[{"content":"x"}] x`, `[{"content" "x"}]`, `[{"content":"x",}]`,
	`[{"content":"x"},`, `[{"content":[{"type":"text","text":"a"},`, `[null,`, `[nul`, `[{"content":[nul`, `[{"content":[null,`, `[ `, `[`,
	// tool calls and tool results: their ids, names and arguments count
	`[{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{"a":1}"}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"}]`,
	`[{"tool_calls":null}]`, `[{"tool_calls":[null,{}]}]`, `[{"tool_calls":5}]`, `[{"tool_calls":[5]}]`, `[{"tool_calls":{}}]`,
	`[{"tool_calls":[{"function":5}]}]`, `[{"tool_calls":[{"function":null,"id":7}]}]`, `[{"tool_call_id":5},{"TOOL_CALL_ID":"x"}]`,
	`[{"tool_calls":[{"function":{"name":"a","arguments":"long arguments"},"function":{"name":"b"},"function":null,"ID":"x","id":"y"}]}]`,
	`[{"tool_calls":[{"id":"a"}],"tool_calls":[{"id":"bb"}]}]`, `[{"tool_calls":[{"id":"a"}],"tool_calls":5}]`, `[{"tool_calls":[{"function":{"NAME":"n","arguments":{"a":1}}}]}]`,
}

// TestEstimatePromptWalksAsEncodingJSON: the walk and encoding/json agree on
// every valid body, in the estimate and in the error.
func TestEstimatePromptWalksAsEncodingJSON(t *testing.T) {
	for _, s := range messagesSeeds {
		checkWalk(t, []byte(s))
	}
}

func checkWalk(t *testing.T, b []byte) {
	got, err := EstimatePrompt(b)
	want, werr := estimatePromptJSON(b)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("EstimatePrompt(%s): error %v, encoding/json says %v", b, err, werr)
	}
	if got != want {
		t.Fatalf("EstimatePrompt(%s) = %+v, encoding/json reads %+v", b, got, want)
	}
}

// FuzzEstimatePromptWalk: on every valid JSON body the walk agrees with
// encoding/json; on any other it never panics.
func FuzzEstimatePromptWalk(f *testing.F) {
	for _, s := range messagesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			_, _ = EstimatePrompt(b)
			return
		}
		checkWalk(t, b)
	})
}
