package openai

import (
	"strings"
	"testing"
)

// TestParseEmbeddingsForms: each input form is read as OpenAI's reference
// describes it, and anything else is a 400 on input.
func TestParseEmbeddingsForms(t *testing.T) {
	many := "[" + strings.Repeat("[1,2],", 2047) + "[3]]"
	cases := []struct {
		name, input     string
		texts, tokenSum int // -1: a 400 on input
	}{
		{"string", `"hi there"`, 1, 0},
		{"strings", ` [ "a", "b" ]`, 2, 0},
		{"ids", `[1, 2, 3]`, 0, 3},
		{"negative ids", `[-1, 2]`, 0, 2},
		{"arrays", `[[1,2],[3]]`, 0, 3},
		{"many arrays", many, 0, 2047*2 + 1},
		{"empty", `[]`, -1, -1},
		{"null item", `[null]`, -1, -1},
		{"empty string", `["a", ""]`, -1, -1},
		{"empty array", `[[1], []]`, -1, -1},
		{"mixed", `["a", 1]`, -1, -1},
		{"float ids", `[1.5]`, -1, -1},
		{"object", `{"a":1}`, -1, -1},
		{"number", `7`, -1, -1},
		{"bool array", `[true]`, -1, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, texts, tokens, reserve, err := parseEmbeddings([]byte(`{"model":"m","input":` + tc.input + `}`))
			if tc.texts < 0 {
				if err == nil || err.Status != 400 || err.Param == nil || *err.Param != "input" {
					t.Fatalf("got %v, want a 400 on input", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, a := range tokens {
				sum += len(a)
			}
			if len(texts) != tc.texts || sum != tc.tokenSum {
				t.Fatalf("texts %d tokens %d, want %d and %d", len(texts), sum, tc.texts, tc.tokenSum)
			}
			if reserve < 1 || (tc.tokenSum > 0 && reserve != int64(tc.tokenSum)) {
				t.Fatalf("reserve %d", reserve)
			}
		})
	}
}
