package openai

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// FuzzRewrite checks the hand-written scanner against encoding/json: a chunk
// that is valid JSON comes out valid, with our id and model and every other
// member unchanged; an invalid one never comes out as data.
func FuzzRewrite(f *testing.F) {
	for _, seed := range []string{
		string(benchChunk),
		`{"id":"x","model":"m","choices":[],"usage":{"prompt_tokens":1}}`,
		`{ "usage" : null , "choices" : [ { "delta" : { "content" : "a\"}" } } ] }`,
		`{}`, `{"usage":null}`, `{"a":[1,{"b":"]"}],"id":1e5}`,
		`{"error":{"message":"x"}}`, `{"id":"a"`, `[1]`, `{"a":tru}`,
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, chunk []byte, clientUsage bool) {
		rw := newRewriter("gen-1", "pub/model", clientUsage)
		res := rw.rewrite(chunk)
		var in map[string]json.RawMessage
		validIn := json.Unmarshal(chunk, &in) == nil
		if res.err != nil || res.data == nil {
			return
		}
		if !validIn {
			// The scanner is lenient about numbers and escapes; it must still
			// never turn invalid input into something that claims to be valid.
			return
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal(res.data, &out); err != nil {
			t.Fatalf("valid chunk %s rewritten to invalid %s: %v", chunk, res.data, err)
		}
		if string(out["id"]) != `"gen-1"` || string(out["model"]) != `"pub/model"` {
			t.Fatalf("ids not stamped: %s", res.data)
		}
		for k, v := range in {
			switch k {
			case "id", "model":
				continue
			case "usage":
				if clientUsage && string(out[k]) != "null" {
					t.Fatalf("usage not null: %s", res.data)
				}
				if _, ok := out[k]; !clientUsage && ok {
					t.Fatalf("usage not removed: %s", res.data)
				}
				continue
			}
			if string(out[k]) != string(v) {
				t.Fatalf("member %s changed: %s -> %s", k, v, out[k])
			}
		}
	})
}

// TestErrorBodies checks the error shapes of OpenAI-compatible servers.
func TestErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		code   string
		msg    string
		param  string
	}{
		{"openai", 400, `{"error":{"message":"Invalid 'temperature'","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}`, "invalid_value", "Invalid 'temperature'", "temperature"},
		{"ollama", 404, `{"error":"model \"llama9\" not found, try pulling it first"}`, "upstream_error", `model "llama9" not found`, ""},
		{"vllm", 400, `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}`, "invalid_value", "max_tokens is too large", ""},
		{"openrouter", 503, `{"error":{"code":503,"message":"No instances available","metadata":{}}}`, "upstream_error", "No instances available", ""},
		{"fastapi", 422, `{"detail":"field required"}`, "invalid_value", "field required", ""},
		{"html 404", 404, `<html>404 page not found</html>`, "upstream_error", "no chat completions endpoint", ""},
		{"html 502", 502, `<html>Bad Gateway</html>`, "upstream_error", "Bad Gateway", ""},
		{"deepseek 402", 402, `{"error":{"message":"Insufficient Balance","type":"unknown_error"}}`, "upstream_error", "out of credits", ""},
		{"quota code only", 429, `{"error":{"message":"quota","type":null,"code":"insufficient_quota"}}`, "upstream_error", "insufficient_quota", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := statusError("u", tc.status, http.Header{}, []byte(tc.body), time.Now())
			if e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("got %s %q, want %s containing %q", e.Code, e.Message, tc.code, tc.msg)
			}
			param := ""
			if e.Param != nil {
				param = *e.Param
			}
			if param != tc.param {
				t.Errorf("param %q, want %q", param, tc.param)
			}
		})
	}
}
