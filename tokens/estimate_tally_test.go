package tokens

import (
	"encoding/json"
	"testing"
)

// TestPromptTally: counting a messages array message by message, text by
// text and call by call gives what encoding/json's reference
// (estimatePromptJSON) and the walk (EstimatePrompt) count of the array.
func TestPromptTally(t *testing.T) {
	type msg struct {
		content string      // a string content; "" with parts
		parts   []string    // text parts' literals
		calls   [][3]string // tool calls' id, name and arguments literals
	}
	for _, tc := range []struct {
		name string
		msgs []msg
	}{
		{"none", nil},
		{"one string", []msg{{content: `"hello there"`}}},
		{"empty text part", []msg{{parts: []string{`""`}}}},
		{"parts and strings", []msg{{content: `"You are terse."`}, {parts: []string{`"a\nb"`, `"Привет, мир"`}}, {content: `"ok 😀 \"x\""`}}},
		{"long ascii", []msg{{content: `"` + string(make64("func f() {}\n")) + `"`}}},
		{"tool calls", []msg{{content: `"two"`, calls: [][3]string{{`"call_1"`, `"apply_patch"`, `"{\"patch\":\"--- a/x.go\\n+++ b/x.go\"}"`}, {`"c2"`, `"ls"`, `"{}"`}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tally PromptTally
			arr := []byte{'['}
			for i, m := range tc.msgs {
				if i > 0 {
					arr = append(arr, ',')
				}
				tally.Message()
				arr = append(arr, `{"role":"user",`...)
				if len(m.calls) > 0 {
					arr = append(arr, `"tool_calls":[`...)
					for j, c := range m.calls {
						if j > 0 {
							arr = append(arr, ',')
						}
						tally.Call([]byte(c[0]), []byte(c[1]), []byte(c[2]))
						arr = append(arr, `{"id":`+c[0]+`,"type":"function","function":{"name":`+c[1]+`,"arguments":`+c[2]+`}}`...)
					}
					arr = append(arr, "],"...)
				}
				if m.parts == nil {
					tally.Text([]byte(m.content))
					arr = append(append(append(arr, `"content":`...), m.content...), '}')
					continue
				}
				arr = append(arr, `"content":[`...)
				for j, p := range m.parts {
					if j > 0 {
						arr = append(arr, ',')
					}
					tally.Text([]byte(p))
					arr = append(append(append(arr, `{"type":"text","text":`...), p...), '}')
				}
				arr = append(arr, "]}"...)
			}
			arr = append(arr, ']')
			if !json.Valid(arr) {
				t.Fatalf("test array is not JSON: %s", arr)
			}
			want, err := estimatePromptJSON(arr)
			if err != nil {
				t.Fatal(err)
			}
			walked, err := EstimatePrompt(arr)
			if err != nil {
				t.Fatal(err)
			}
			if got := tally.Estimate(); got != want || walked != want {
				t.Errorf("tally %+v, EstimatePrompt %+v; encoding/json's reference %+v", got, walked, want)
			}
			if len(tc.msgs) > 0 && want.Reserve == 0 {
				t.Errorf("the reference counts nothing of %s", arr)
			}
		})
	}
}

// make64 is s repeated to about 4 KB, escaped as a JSON string body.
func make64(s string) []byte {
	var raw []byte
	for len(raw) < 4096 {
		raw = append(raw, s...)
	}
	lit, _ := json.Marshal(string(raw))
	return lit[1 : len(lit)-1]
}
