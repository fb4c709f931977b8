package openai

import (
	"bytes"
	"encoding/json"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// marshalCompletion is the reply as encoding/json writes it.
func marshalCompletion(t testing.TB, id string, resp *shlyuz.ChatResponse, r *actors.Receipt) ([]byte, error) {
	t.Helper()
	return json.Marshal(&completion{ID: id, Object: "chat.completion", Created: resp.Created, Model: r.Model,
		Choices: resp.Choices, Usage: newUsage(r), SystemFingerprint: resp.SystemFingerprint})
}

// The hand-written reply is json.Marshal's, byte for byte, or declined.
func TestAppendCompletionIsMarshals(t *testing.T) {
	full := &actors.Receipt{Model: "openai/gpt-4o", Credits: 123456,
		Usage: shlyuz.Usage{PromptTokens: 1200, CompletionTokens: 300, TotalTokens: 1500, CachedTokens: 1000, CacheWriteTokens: 7,
			CacheWrite1hTokens: 3, AudioPromptTokens: 4, ImagePromptTokens: 5, ReasoningTokens: 200, AudioCompletionTokens: 6, ImageCompletionTokens: 8},
		Details: shlyuz.CreditsDetails{Input: 1, CachedInput: 2, CacheWrite: 3, Output: 4, Reasoning: 5, AudioInput: 6, AudioOutput: 7,
			ImageInput: 8, ImageOutput: 9, Request: 10, WebSearch: 123410}}
	plain := &actors.Receipt{Model: "bench/instant", Credits: 17, Usage: shlyuz.Usage{PromptTokens: 1, CompletionTokens: 16, TotalTokens: 17},
		Details: shlyuz.CreditsDetails{Input: 1, Output: 16}}
	for _, tc := range []struct {
		name, id, choices, fp string
		r                     *actors.Receipt
		taken                 bool
	}{
		{"plain", "gen-1764410000-ABCDEFGHIJKLMNOPQRST", `[{"index":0,"message":{"role":"assistant","content":"tok0 tok1","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}]`, "fp_fake", plain, true},
		{"every detail", "gen-1", `[{"index":0,"message":{"role":"assistant","content":"a \"quoted\" \\ word\n"},"finish_reason":"length"}]`, "", full, true},
		{"negative and zero", "gen-2", `[]`, "", &actors.Receipt{Usage: shlyuz.Usage{PromptTokens: -1}}, true},
		{"no choices", "gen-3", ``, "fp", plain, true},
		{"unicode", "gen-4", `[{"message":{"content":"Привет, мир \ud83d\ude80 é"}}]`, "fp_é", plain, true},
		{"fingerprint with a quote", "gen-5", `[]`, "a\"b\\c\x01", plain, true},
		{"pretty choices", "gen-6", "[\n  {\"index\": 0}\n]", "", plain, false},
		{"html in content", "gen-7", `[{"message":{"content":"if a < b && c > d"}}]`, "", plain, false},
		{"line separator", "gen-8", "[{\"message\":{\"content\":\"a\u2028b\"}}]", "", plain, false},
		{"html in the model", "gen-9", `[]`, "", &actors.Receipt{Model: "a<b"}, false},
		{"html in the fingerprint", "gen-10", `[]`, "x&y", plain, false},
		{"escaped quote then space", "gen-11", `[{"c":"a\\"},{"d":1}]`, "", plain, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &shlyuz.ChatResponse{Created: 1764410000, Choices: json.RawMessage(tc.choices), SystemFingerprint: tc.fp}
			if tc.choices == "" {
				resp.Choices = nil
			}
			got, taken := appendCompletion(nil, tc.id, resp, tc.r)
			if taken != tc.taken {
				t.Fatalf("taken %v, want %v", taken, tc.taken)
			}
			want, err := marshalCompletion(t, tc.id, resp, tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if taken && !bytes.Equal(got, want) {
				t.Fatalf("\n got %s\nwant %s", got, want)
			}
		})
	}
}

// FuzzAppendCompletion: whatever valid choices and strings a reply holds,
// the hand-written reply it takes is json.Marshal's.
func FuzzAppendCompletion(f *testing.F) {
	f.Add(`[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]`, "fp", "m/x", int64(5))
	f.Add(`[{"a":"\\\"","b":[1,2.5e3,true,null]}]`, "", "a", int64(-1))
	f.Fuzz(func(t *testing.T, choices, fp, model string, n int64) {
		if !json.Valid([]byte(choices)) {
			return
		}
		r := &actors.Receipt{Model: model, Credits: n, Usage: shlyuz.Usage{PromptTokens: n, CachedTokens: n / 2, ReasoningTokens: n / 3},
			Details: shlyuz.CreditsDetails{Input: n, WebSearch: n / 5}}
		resp := &shlyuz.ChatResponse{Created: n, Choices: json.RawMessage(choices), SystemFingerprint: fp}
		got, taken := appendCompletion(nil, "gen-"+fp, resp, r)
		if !taken {
			return
		}
		want, err := marshalCompletion(t, "gen-"+fp, resp, r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}
