package openai

import (
	"encoding/json"
	"reflect"
	"testing"
)

// readUsage decides as encoding/json does, or declines: every usage it takes
// gives the very wireUsage json.Unmarshal gives.
func TestReadUsageAgreesWithEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		name, usage string
		taken       bool
	}{
		{"OpenAI's", `{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`, true},
		{"OpenRouter's", `{"prompt_tokens":194,"completion_tokens":2,"total_tokens":196,"cost":0.95,"is_byok":false,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100,"audio_tokens":0,"video_tokens":0},"cost_details":{"upstream_inference_cost":null},"completion_tokens_details":{"reasoning_tokens":0,"image_tokens":0}}`, true},
		{"DeepSeek's", `{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_cache_hit_tokens":8,"prompt_cache_miss_tokens":2}`, true},
		{"spaces", " { \"prompt_tokens\" : 1 , \"prompt_tokens_details\" : { \"cached_tokens\" : 1 } } ", true},
		{"nulls", `{"prompt_tokens":null,"prompt_tokens_details":null,"completion_tokens_details":{"reasoning_tokens":null}}`, true},
		{"details then null", `{"prompt_tokens_details":{"cached_tokens":3},"prompt_tokens_details":null}`, true},
		{"repeated count", `{"prompt_tokens":1,"prompt_tokens":2}`, true},
		{"negative", `{"prompt_tokens":-3}`, true},
		{"eighteen digits", `{"prompt_tokens":999999999999999999}`, true},
		{"nineteen digits", `{"prompt_tokens":1000000000000000000}`, false},
		{"overflow", `{"prompt_tokens":99999999999999999999}`, false},
		{"a fraction", `{"prompt_tokens":1.0}`, false},
		{"an exponent", `{"prompt_tokens":1e3}`, false},
		{"a string count", `{"prompt_tokens":"3"}`, false},
		{"a string detail", `{"prompt_tokens_details":{"cached_tokens":"3"}}`, false},
		{"details as an array", `{"prompt_tokens_details":[1]}`, false},
		{"a key by case folding", `{"Prompt_Tokens":3}`, false},
		{"a detail key by case folding", `{"completion_tokens_details":{"Reasoning_tokens":3}}`, false},
		{"a key by Unicode folding", `{"prompt_tokenſ":3}`, false},
		{"an escaped key", `{"prompt\u005ftokens":3}`, false},
		{"an escaped unknown key", `{"co\u0073t":3}`, false},
		{"not an object", `[1]`, false},
		{"cut short", `{"prompt_tokens":1`, false},
		{"trailing garbage", `{"prompt_tokens":1} x`, false},
		{"invalid in an unknown member", `{"cost":tru}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fast wireUsage
			taken := readUsage([]byte(tc.usage), &fast)
			if taken != tc.taken {
				t.Fatalf("readUsage took it: %v, want %v", taken, tc.taken)
			}
			var slow wireUsage
			err := json.Unmarshal([]byte(tc.usage), &slow)
			if taken && (err != nil || !reflect.DeepEqual(fast, slow)) {
				t.Fatalf("one pass %+v, encoding/json %+v (%v)", fast, slow, err)
			}
			got, gotErr := parseUsage([]byte(tc.usage))
			if (gotErr != nil) != (err != nil) || (err == nil && got != slow.usage()) {
				t.Fatalf("parseUsage = %+v, %v; encoding/json's %+v, %v", got, gotErr, slow.usage(), err)
			}
		})
	}
}

// FuzzReadUsage: a usage object the one pass takes is decoded exactly as
// encoding/json decodes it, and one encoding/json refuses is never taken.
func FuzzReadUsage(f *testing.F) {
	f.Add([]byte(`{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":1}}`))
	f.Add([]byte(`{"prompt_cache_hit_tokens":4,"cost":0.5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast wireUsage
		if !readUsage(data, &fast) {
			return
		}
		var slow wireUsage
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("took %q, which encoding/json refuses: %v", data, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: one pass %+v, encoding/json %+v", data, fast, slow)
		}
	})
}
