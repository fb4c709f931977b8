package http

import (
	"testing"

	"github.com/shlyuz/shlyuz/http/gemini"
)

// FuzzParseGenerate: any body is a Gemini request the gateway can reserve
// for, or a 4xx; never a panic.
func FuzzParseGenerate(f *testing.F) {
	for _, seed := range []string{
		`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		`{"systemInstruction":{"parts":[{"text":"x"}]},"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"r":2}}}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"a":{"type":"INTEGER","nullable":true}}}}]},{"googleSearch":{}}],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`,
		`{"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"maxOutputTokens":0,"candidateCount":9,"responseMimeType":"application/json","responseSchema":{"type":"ARRAY","items":{"type":"STRING"}},"thinkingConfig":{"thinkingBudget":-1}}}`,
		`{"contents":[]}`, `{"contents":null}`, `[]`, `null`, `{"contents":[{"role":"system","parts":[]}]}`,
		`{"contents":[{"parts":[{"text":"\ud800"}]}],"models":["a/b"],"provider":{"order":1}}`, `{"contents":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		call, err := gemini.ParseGenerate(body, "google/gemini-2.5-flash", true)
		if err != nil {
			if err.Status < 400 || err.Status >= 500 {
				t.Fatalf("refusal %d %q for %q", err.Status, err.Message, body)
			}
			return
		}
		if call.Prompt.Reserve < call.Prompt.Likely || call.Prompt.Likely < 1 || call.MaxTokens < 0 {
			t.Fatalf("accepted %q with estimate %+v, max_tokens %d", body, call.Prompt, call.MaxTokens)
		}
	})
}
