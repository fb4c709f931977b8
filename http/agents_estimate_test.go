package http

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The requests coding agents send (captured from Claude Code and Codex as
// they ship, testdata/agents) are mostly tool definitions and
// instructions. Their reservation must stay above what real tokenizers
// count of them. It is a token per byte of text (the one count that bounds
// every tokenizer on any text: tokens/estimate_bound_test.go), which for
// the English and JSON of an agent's tools is four to five bytes a token:
// at most six times OpenAI's count.
func TestAgentRequestsHoldWhatTheyCost(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	noHeader := func(string, ...string) string { return "" }
	for _, tc := range []struct {
		file  string
		parse func([]byte) (int64, error)
	}{
		{"claude-code-2.1.197.json", func(b []byte) (int64, error) {
			c, err := parseMessages(b, noHeader, false)
			if err != nil {
				return 0, err
			}
			return c.Prompt.Reserve, nil
		}},
		{"codex-0.171.0.json", func(b []byte) (int64, error) {
			c, _, err := parseResponses(b)
			if err != nil {
				return 0, err
			}
			return c.Prompt.Reserve, nil
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile("testdata/agents/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			reserve, err := tc.parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			text := promptText(t, raw)
			for _, name := range []string{"o200k_base", "cl100k_base"} {
				enc, err := tiktoken.GetEncoding(name)
				if err != nil {
					t.Fatal(err)
				}
				n := int64(len(enc.Encode(text, nil, nil)))
				t.Logf("%s: reserve %d, %s %d (%.2f×)", tc.file, reserve, name, n, float64(reserve)/float64(n))
				if reserve < n {
					t.Errorf("%s: reserve %d is below %s's %d", tc.file, reserve, name, n)
				}
				if reserve > 6*n {
					t.Errorf("%s: reserve %d is above 6× %s's %d", tc.file, reserve, name, n)
				}
			}
		})
	}
}

// promptText is what an upstream renders of a request into its prompt: the
// tool definitions as JSON, and the text of everything else (the
// instructions, system prompt and turns), one string after another.
func promptText(t *testing.T, raw []byte) string {
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(body["tools"])
	for _, k := range []string{"system", "instructions", "messages", "input"} {
		var v any
		if json.Unmarshal(body[k], &v) == nil {
			strs(&b, v)
		}
	}
	return b.String()
}

func strs(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		b.WriteString(v)
		b.WriteByte('\n')
	case []any:
		for _, e := range v {
			strs(b, e)
		}
	case map[string]any:
		for k, e := range v {
			if k != "type" && k != "role" && k != "cache_control" {
				strs(b, e)
			}
		}
	}
}
