package http

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/shlyuz/shlyuz/http/gemini"
)

// TestGeminiRequestGolden: a Gemini GenerateContentRequest in chat's shape,
// for the upstreams that do not speak Gemini; what a Gemini upstream gets
// (the body as it came, routing fields taken out). The prompt's estimate is
// the tokens package's (its own tests, and http's agents estimate test).
// One case is Gemini CLI 0.61.0's own first request (testdata/agents).
func TestGeminiRequestGolden(t *testing.T) {
	runGolden(t, "gemini/request", ".json", func(t *testing.T, raw []byte) []byte {
		call, err := gemini.ParseGenerate(raw, "gemini-2.5-flash", true)
		if err != nil {
			return describe(err)
		}
		native := make([]string, 0, len(call.Native.Body))
		for k := range call.Native.Body {
			native = append(native, k)
		}
		out := map[string]any{
			"fields": call.Fields, "max_tokens": call.MaxTokens, "n": call.N, "models": call.Models,
			"native_members": sorted(native),
		}
		if u := call.Native.Unfit; u != nil {
			out["unfit"] = fmt.Sprintf("%d %s", u.Status, u.Message)
		}
		b, merr := json.MarshalIndent(out, "", "  ")
		if merr != nil {
			t.Fatal(merr)
		}
		return append(b, '\n')
	})
}

func sorted(s []string) []string { slices.Sort(s); return s }
