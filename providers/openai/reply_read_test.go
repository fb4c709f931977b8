package openai

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// readReply decides as encoding/json does, or declines: every reply it takes
// gives the very wireReply json.Unmarshal gives.
func TestReadReplyAgreesWithEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		taken bool // the one pass takes it (else encoding/json decides)
	}{
		{"plain", `{"id":"x","object":"chat.completion","created":1700000000,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4,"prompt_tokens_details":{"cached_tokens":2}},"system_fingerprint":"fp_1"}`, true},
		{"spaces around", " \n{ \"choices\" : [ ] , \"created\" : 5 }\t", true},
		{"nulls", `{"created":null,"choices":null,"usage":null,"system_fingerprint":null,"error":null}`, true},
		{"repeated usage merges", `{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2},"choices":[]}`, true},
		{"usage then null", `{"usage":{"prompt_tokens":1},"usage":null,"choices":[]}`, true},
		{"escaped fingerprint", `{"system_fingerprint":"a\"b\u00e9","choices":[]}`, false},
		{"invalid UTF-8 fingerprint", "{\"system_fingerprint\":\"a\xffb\",\"choices\":[]}", false},
		{"created as a float", `{"created":1.5,"choices":[]}`, false},
		{"created as a string", `{"created":"5","choices":[]}`, false},
		{"created too large", `{"created":99999999999999999999,"choices":[]}`, false},
		{"usage as an array", `{"usage":[1],"choices":[]}`, false},
		{"usage with a string count", `{"usage":{"prompt_tokens":"3"},"choices":[]}`, false},
		{"a key by case folding", `{"Choices":[1],"choices":[]}`, false},
		{"a key by Unicode folding", `{"choiceſ":[1]}`, false},
		{"an escaped key", `{"cho\u0069ces":[1]}`, false},
		{"an unknown key", `{"choicesX":[1],"choices":[]}`, true},
		{"trailing garbage", `{"choices":[]} x`, false},
		{"two values", `{"choices":[]}{}`, false},
		{"not an object", `[1]`, false},
		{"cut short", `{"choices":[`, false},
		{"invalid inside choices", `{"choices":[tru]}`, false},
		{"a control character in a string", "{\"choices\":[\"a\x01\"]}", false},
		{"error member", `{"error":{"message":"boom","code":500}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fast wireReply
			taken := readReply([]byte(tc.reply), &fast)
			if taken != tc.taken {
				t.Fatalf("readReply took it: %v, want %v", taken, tc.taken)
			}
			var slow wireReply
			err := json.Unmarshal([]byte(tc.reply), &slow)
			if taken && (err != nil || !reflect.DeepEqual(fast, slow)) {
				t.Fatalf("one pass %+v, encoding/json %+v (%v)", fast, slow, err)
			}
		})
	}
}

// FuzzReadReply: whatever the upstream sends, a reply the one pass takes is
// decoded exactly as encoding/json decodes it, and one encoding/json refuses
// is never taken.
func FuzzReadReply(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.json")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"created":1,"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1}}`))
	f.Add([]byte(`{"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast wireReply
		if !readReply(data, &fast) {
			return
		}
		var slow wireReply
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("took %q, which encoding/json refuses: %v", data, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: one pass %+v, encoding/json %+v", data, fast, slow)
		}
	})
}

// BenchmarkDecodeReply: a short reply and one of 16 KB of text, decoded as
// the non-streamed call does.
func BenchmarkDecodeReply(b *testing.B) {
	long := make([]byte, 16<<10)
	for i := range long {
		long[i] = "abcdefgh ijklmnop\\n"[i%19]
	}
	for _, bc := range []struct{ name, content string }{{"short", "Hello! How can I help you today?"}, {"16KB", string(long)}} {
		reply := []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"` +
			bc.content + `","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":9,"total_tokens":21,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}},"system_fingerprint":"fp_44709d6fcb"}`)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(reply)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeReply(reply); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
