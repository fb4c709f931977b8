package tokens

import (
	"encoding/json"
	"testing"
)

func TestEstimateCompletion(t *testing.T) {
	cases := []struct {
		name    string
		choices string
		want    int64
	}{
		{"text", `[{"message":{"role":"assistant","content":"12345678"}}]`, 2},
		{"rounded up", `[{"message":{"content":"123456789"}}]`, 3},
		{"parts", `[{"message":{"content":[{"type":"text","text":"1234"},{"type":"text","text":"5678"}]}}]`, 2},
		{"tool call", `[{"message":{"content":null,"tool_calls":[{"function":{"name":"get","arguments":"{\"a\":1}"}}]}}]`, 3},
		{"refusal", `[{"message":{"refusal":"no"}}]`, 1},
		{"two choices", `[{"message":{"content":"1234"}},{"message":{"content":"12345"}}]`, 3},
		{"empty", `[{"message":{"content":""}}]`, 0},
		{"not json", `[{`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := EstimateCompletion(json.RawMessage(tc.choices)); got != tc.want {
				t.Fatalf("EstimateCompletion(%s) = %d, want %d", tc.choices, got, tc.want)
			}
		})
	}
}

func TestEstimateDefinitions(t *testing.T) {
	tools := json.RawMessage(`[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}},{"type":"function","function":{"name":"b"}}]`)
	schema := json.RawMessage(`{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}}`)
	e := EstimateDefinitions(tools, nil, json.RawMessage("null"), schema)
	// a token per byte plus 16 per element: 2 tools, 1 schema
	if want := int64(len(tools)+2*16) + int64(len(schema)+16); e.Reserve != want {
		t.Errorf("reserve %d, want %d", e.Reserve, want)
	}
	if want := int64((len(tools)+3)/4 + (len(schema)+3)/4); e.Likely != want {
		t.Errorf("likely %d, want %d", e.Likely, want)
	}
}

// TestArrayLen: arrayLen counts what decoding into []json.RawMessage gives,
// and 0 where that decode fails for the array's shape (its strings and
// numbers it trusts: they come from a validated body).
func TestArrayLen(t *testing.T) {
	for _, v := range []string{`[]`, `[1]`, `[{"a":[1,2]},"x,y",null] `, `[1,]`, `[1] x`, `{"a":1}`, ` [1]`, `[1,2`, `[[[]]]`,
		`[ "a\"],[" , {"k":"]"} , [ [], {} ] ]`, `[1 2]`, `[,1]`, `[}`, `[{"a":1]`, `[[1]`} {
		want := 0
		var arr []json.RawMessage
		if v[0] == '[' && json.Unmarshal([]byte(v), &arr) == nil {
			want = len(arr)
		}
		if got := arrayLen([]byte(v)); got != want {
			t.Fatalf("arrayLen(%s) = %d, want %d", v, got, want)
		}
	}
}
