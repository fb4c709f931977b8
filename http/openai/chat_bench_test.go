package openai

import (
	"encoding/json"
	"testing"

	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/http/internal/apitest"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

var benchRequest = []byte(`{"model":"openai/gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},` +
	`{"role":"user","content":"Write a haiku about the sea, and explain each line briefly."}],"temperature":0.7,"max_tokens":256,` +
	`"usage":{"include":true},"stream":false}`)

// BenchmarkParseChat is the gateway's one decode of a chat request.
func BenchmarkParseChat(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseChat(benchRequest); err != nil {
			b.Fatal(err)
		}
	}
}

// chatSizes are the request sizes of the large-context benchmarks.
var chatSizes = []struct {
	name string
	n    int
}{{"1KB", 1 << 10}, {"150KB", 150_000}, {"1MB", 1 << 20}}

// BenchmarkParseChatSizes is parseChat on large contexts (MB/s), and beside
// it encoding/json's decode of the top level that parseChat's one pass
// replaced, on the same body.
func BenchmarkParseChatSizes(b *testing.B) {
	for _, size := range chatSizes {
		body := apitest.BigChat(size.n)
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseChat(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(size.name+"/split", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := api.SplitObject(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(size.name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var fields map[string]json.RawMessage
				if err := json.Unmarshal(body, &fields); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEmitCompletion is the gateway's one encode of a chat reply.
func BenchmarkEmitCompletion(b *testing.B) {
	choices := json.RawMessage(`[{"index":0,"message":{"role":"assistant","content":"Waves fold into foam, the tide keeps its patient count, salt remembers us."},"logprobs":null,"finish_reason":"stop"}]`)
	r := &actors.Receipt{Usage: shlyuz.Usage{PromptTokens: 31, CompletionTokens: 18, TotalTokens: 49}, Credits: 1234, Model: "openai/gpt-4o-mini"}
	resp := &shlyuz.ChatResponse{Created: 1760000000, Choices: choices, SystemFingerprint: "fp"}
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		var ok bool
		if buf, ok = appendCompletion(buf[:0], "gen-1-ABC", resp, r); !ok {
			b.Fatal("declined")
		}
	}
}

func TestParseChatReadsWhatTheGatewayActsOn(t *testing.T) {
	for _, tc := range []struct {
		name, body     string
		models         []string
		maxTokens      int64
		stream         bool
		order          []string
		allowFallbacks bool
	}{
		{"plain", `{"model":"a/b","messages":[{"role":"user","content":"hi"}]}`, []string{"a/b"}, 0, false, nil, true},
		{"max_completion_tokens wins", `{"model":"a/b","messages":[{"role":"user","content":"hi"}],"max_tokens":9,"max_completion_tokens":7}`, []string{"a/b"}, 7, false, nil, true},
		{"fallback models", `{"model":"a/b","models":["a/b","c/d"],"messages":[{"role":"user","content":"hi"}],"stream":true}`, []string{"a/b", "c/d"}, 0, true, nil, true},
		{"provider prefs", `{"model":"a/b","messages":[{"role":"user","content":"hi"}],"provider":{"order":["x"],"allow_fallbacks":false}}`, []string{"a/b"}, 0, false, []string{"x"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseChat([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Models) != len(tc.models) || c.Models[len(c.Models)-1] != tc.models[len(tc.models)-1] || c.MaxTokens != tc.maxTokens ||
				c.Stream != tc.stream || len(c.Order) != len(tc.order) || c.AllowFallbacks != tc.allowFallbacks || c.Prompt.Reserve <= 0 {
				t.Fatalf("%+v", c)
			}
		})
	}
}
