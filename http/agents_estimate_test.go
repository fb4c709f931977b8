package http

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/shlyuz/shlyuz/http/anthropic"
	"github.com/shlyuz/shlyuz/http/gemini"
	"github.com/shlyuz/shlyuz/http/responses"
	"github.com/shlyuz/shlyuz/tokens"
	"github.com/shlyuz/shlyuz/tokens/tokenstest"
	"golang.org/x/text/unicode/norm"
)

// The requests coding agents send (captured from Claude Code, Codex and
// Gemini CLI as they ship, testdata/agents) are mostly tool definitions and
// instructions. Their prompt reservation at the model they were sent to
// stays above what every real tokenizer counts of them (o200k, cl100k,
// Claude's, Gemini's), and holds at most 1.5 times what their provider
// charges for it: Claude's tokenizer's count plus the 346 tokens of tool-use
// system prompt Anthropic documents and bills for Claude Code (an Anthropic
// model), o200k's count for Codex (an OpenAI model), Gemini's tokenizer's
// count for Gemini CLI (Google documents no tool-use preamble).
func TestAgentRequestsHoldWhatTheyCost(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	claude, err := tokenstest.Claude()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]func(string) int64{
		"claude": func(s string) int64 { return int64(len(claude.Encode(norm.NFKC.String(s), nil, nil))) },
	}
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		enc, err := tiktoken.GetEncoding(name)
		if err != nil {
			t.Fatal(err)
		}
		counts[name] = func(s string) int64 { return int64(len(enc.Encode(s, nil, nil))) }
	}
	noHeader := func(string, ...string) string { return "" }
	captures := []struct {
		file     string
		model    string // the catalog's model the agent sent it to
		parse    func([]byte) (tokens.PromptEstimate, error)
		provider string // the tokenizer the agent's provider counts with
		framing  int64  // what the provider documents adding, and bills
	}{
		{"claude-code-2.1.197.json", "anthropic/claude-opus-4.8", func(b []byte) (tokens.PromptEstimate, error) {
			c, err := anthropic.ParseMessages(b, noHeader, false)
			if err != nil {
				return tokens.PromptEstimate{}, err
			}
			return c.Prompt, nil
		}, "claude", 346},
		{"codex-0.171.0.json", "openai/gpt-5", func(b []byte) (tokens.PromptEstimate, error) {
			c, _, err := responses.ParseResponses(b)
			if err != nil {
				return tokens.PromptEstimate{}, err
			}
			return c.Prompt, nil
		}, "o200k_base", 0},
		{"gemini-cli-0.61.0.json", "google/gemini-2.5-flash", func(b []byte) (tokens.PromptEstimate, error) {
			c, err := gemini.ParseGenerate(b, "gemini-2.5-flash", true)
			if err != nil {
				return tokens.PromptEstimate{}, err
			}
			return c.Prompt, nil
		}, "gemini", 0},
	}
	texts := make([]string, len(captures))
	raws := make([][]byte, len(captures))
	for i, tc := range captures {
		if raws[i], err = os.ReadFile("testdata/agents/" + tc.file); err != nil {
			t.Fatal(err)
		}
		texts[i] = promptText(t, raws[i])
	}
	// Gemini's tokenizers run under node: every text is counted in one run.
	byName, err := tokenstest.GeminiCounts(texts...)
	if err != nil {
		t.Fatal(err)
	}
	for name, byText := range byName {
		counts[name] = func(s string) int64 { return int64(byText[s]) }
	}
	for i, tc := range captures {
		t.Run(tc.file, func(t *testing.T) {
			est, err := tc.parse(raws[i])
			if err != nil {
				t.Fatal(err)
			}
			reserve := est.ReserveFor(tc.model)
			for name, count := range counts {
				n := count(texts[i])
				t.Logf("%s: reserve %d, %s %d (%.2f×)", tc.file, reserve, name, n, float64(reserve)/float64(n))
				if reserve < n {
					t.Errorf("%s: reserve %d is below %s's %d", tc.file, reserve, name, n)
				}
			}
			charged := counts[tc.provider](texts[i]) + tc.framing
			t.Logf("%s: reserve %d, charged %d (%.3f×)", tc.file, reserve, charged, float64(reserve)/float64(charged))
			if 2*reserve > 3*charged {
				t.Errorf("%s: reserve %d is above 1.5× the %d charged", tc.file, reserve, charged)
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
	for _, k := range []string{"system", "instructions", "messages", "input", "systemInstruction", "contents"} {
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
