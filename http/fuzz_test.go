package http

import (
	"slices"
	"strings"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/tokens"
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
		_ = tokens.EstimateCompletion(body)
	})
}

// FuzzParseImages: an image request, whatever it holds, is accepted for an
// image model of the catalog with n and the size in range and a worst case
// above zero, or refused with a 400-class error; it never panics.
func FuzzParseImages(f *testing.F) {
	cat, p := fuzzCatalog(f)
	for _, seed := range []string{
		`{"model":"openai/gpt-image-1","prompt":"a cat","n":2,"size":"1024x1536","quality":"high"}`,
		`{"model":"openai/dall-e-3","prompt":"x","quality":"hd","size":"1792x1024","response_format":"url"}`,
		`{"model":"openai/dall-e-2","prompt":"x","n":"3","aspect_ratio":"1:1"}`,
		`{"model":"demo/image-gen","prompt":"x","stream":true}`, `{"model":"demo/echo","prompt":"x"}`,
		`{"model":"openai/gpt-image-1","prompt":"\u0000","n":1e400}`, `{"n":null}`, `[]`, `{"provider":{"order":1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, m, opt, n, err := parseImages(body, cat)
		if err != nil {
			if err.Status < 400 || err.Status >= 500 {
				t.Fatalf("refusal %d %q for %q", err.Status, err.Message, body)
			}
			return
		}
		if m.Image == nil || n < 1 || n > max(1, m.Image.MaxN) || !slices.Contains(m.Image.Sizes, opt.Size) {
			t.Fatalf("accepted %q: model %s, n %d, option %+v", body, m.ID, n, opt)
		}
		if w := m.ImageWorst(opt, n, tokens.Text(in.Prompt), p); w <= 0 {
			t.Fatalf("accepted %q with a worst case of %d", body, w)
		}
	})
}

// FuzzParseSpeech: a speech request is accepted for a speech model with a
// voice and format it has and a worst case above zero, or refused with a
// 400-class error; it never panics.
func FuzzParseSpeech(f *testing.F) {
	cat, p := fuzzCatalog(f)
	for _, seed := range []string{
		`{"model":"openai/tts-1","input":"hello","voice":"alloy","response_format":"wav","speed":1.5}`,
		`{"model":"demo/tts","input":"x"}`, `{"model":"yandex/speechkit-tts-v3","input":"` + strings.Repeat("я", 300) + `","voice":"alena"}`,
		`{"model":"google/gemini-2.5-flash-preview-tts","input":"hi","voice":"Kore"}`, `{"model":"openai/whisper-1","input":"x"}`,
		`{"model":"openai/tts-1","input":"x","speed":1e400}`, `{"stream_format":"sse"}`, `[]`, `{"input":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, m, err := parseSpeech(body, cat)
		if err != nil {
			if err.Status < 400 || err.Status >= 500 {
				t.Fatalf("refusal %d %q for %q", err.Status, err.Message, body)
			}
			return
		}
		if m.Speech == nil || !slices.Contains(m.Speech.Formats, in.ResponseFormat) || in.Input == "" {
			t.Fatalf("accepted %q: model %s, %+v", body, m.ID, in)
		}
		if w := m.SpeechWorst(in.Input, tokens.Text(in.Input), p); w <= 0 {
			t.Fatalf("accepted %q with a worst case of %d", body, w)
		}
	})
}

// fuzzCatalog is the embedded catalog at a pricing with a coefficient.
func fuzzCatalog(f *testing.F) (*shlyuz.Catalog, shlyuz.Pricing) {
	models, err := shlyuz.EmbeddedModels()
	if err != nil {
		f.Fatal(err)
	}
	p := shlyuz.Pricing{Rate: shlyuz.MustDecimal("90"), K: shlyuz.MustDecimal("1.2")}
	return shlyuz.NewCatalog(models, p), p
}
