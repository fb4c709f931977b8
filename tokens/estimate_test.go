package tokens

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
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

// TestEstimateDefinitions: definitions are counted as text (at most a token
// per byte, the bound for any tokenizer) and stay above what
// OpenAI's tokenizer makes of their JSON, with the framing an upstream adds
// (16 a definition) and the tool-use preamble once.
func TestEstimateDefinitions(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	desc := strings.Repeat("Reads a file from the local filesystem and returns its lines with numbers. ", 20)
	tools := json.RawMessage(`[{"type":"function","function":{"name":"get_weather","description":"` + desc + `","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},{"type":"function","function":{"name":"b"}}]`)
	schema := json.RawMessage(`{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}}`)
	e := EstimateDefinitions(tools, nil, json.RawMessage("null"), schema)
	tokens := int64(len(enc.Encode(string(tools), nil, nil)) + len(enc.Encode(string(schema), nil, nil)))
	if floor := tokens + 3*16 + 346; e.Reserve < floor {
		t.Errorf("reserve %d is below the tokenizer's %d with framing and Anthropic's preamble (%d)", e.Reserve, tokens, floor)
	}
	if bytes := int64(len(tools) + len(schema)); e.Reserve > bytes+3*16+400 { // text is bounded by a token a byte: no count of its shape is a bound
		t.Errorf("reserve %d for %d bytes of definitions: above a token per byte", e.Reserve, bytes)
	}
	if e.Likely < tokens/2 || e.Likely > e.Reserve {
		t.Errorf("likely %d (tokenizer %d, reserve %d)", e.Likely, tokens, e.Reserve)
	}
	if z := EstimateDefinitions(nil, json.RawMessage("null")); z.Reserve != 0 || z.Likely != 0 {
		t.Errorf("no definitions counted %+v", z)
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
