package http

import (
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

// FuzzParseChat: a client's chat body, whatever it holds, is parsed or
// refused with a 400-class error naming what is wrong; it never panics, and
// what it accepts has a model and a sane prompt estimate.
func FuzzParseChat(f *testing.F) {
	for _, seed := range []string{
		`{"model":"a/b","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"a/b","models":["c/d",""],"messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}],"stream":true,"max_tokens":5}`,
		`{"model":"a/b","messages":[],"provider":{"order":["x"],"allow_fallbacks":false},"max_completion_tokens":-1}`,
		`{"model":1}`, `{"messages":null}`, `[]`, `null`, `{"model":"a","messages":[{"content":null}]}`,
		`{"model":"a","messages":[{"content":"\ud800"}],"usage":{"include":true}}`, `{"model":"a","messages":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		call, err := parseChat(body)
		if err != nil {
			if err.Status < 400 || err.Status >= 500 {
				t.Fatalf("refusal %d %q for %q", err.Status, err.Message, body)
			}
			return
		}
		if len(call.Models) == 0 || call.Models[0] == "" {
			t.Fatalf("accepted %q without a model", body)
		}
		if call.Prompt.Reserve < call.Prompt.Likely || call.Prompt.Likely < 1 || call.MaxTokens < 0 {
			t.Fatalf("accepted %q with estimate %+v, max_tokens %d", body, call.Prompt, call.MaxTokens)
		}
		_ = shlyuz.EstimateCompletion(body)
	})
}
