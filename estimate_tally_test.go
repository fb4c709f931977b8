package shlyuz

import (
	"encoding/json"
	"testing"
)

// TestPromptTally: counting a messages array message by message and text
// by text gives EstimatePrompt of the array, the reference.
func TestPromptTally(t *testing.T) {
	type msg struct {
		content string   // a string content; "" with parts
		parts   []string // text parts' literals
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tally PromptTally
			arr := []byte{'['}
			for i, m := range tc.msgs {
				if i > 0 {
					arr = append(arr, ',')
				}
				tally.Message()
				if m.parts == nil {
					tally.Text([]byte(m.content))
					arr = append(append(append(arr, `{"role":"user","content":`...), m.content...), '}')
					continue
				}
				arr = append(arr, `{"role":"user","content":[`...)
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
			want, err := EstimatePrompt(arr)
			if err != nil {
				t.Fatal(err)
			}
			if got := tally.Estimate(); got != want {
				t.Errorf("tally %+v, EstimatePrompt %+v", got, want)
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
