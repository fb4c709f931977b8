package gemini_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// These tests hold the fake's Gemini dialect to the recorded wire format,
// over raw HTTP, so that the adapter's tests against it mean something.

func postRaw(t *testing.T, u *upstream, path, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	resp := adaptertest.Post(t, u.TS.URL+path, body, map[string]string{"Content-Type": "application/json"}, header)
	b, err := io.ReadAll(resp.Body)
	if err != nil && !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatal(err)
	}
	return resp, string(b)
}

const (
	nativeHello = `{"contents":[{"role":"user","parts":[{"text":"Hello there, how are you?"}]}]}`
	generate    = "/v1beta/models/gemini-2.5-flash:generateContent"
	streamSSE   = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
)

var keyHeader = map[string]string{"x-goog-api-key": testKey}

type nativeResponse struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         *string `json:"text"`
				FunctionCall *struct {
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
					ID   string          `json:"id"`
				} `json:"functionCall"`
				ThoughtSignature string `json:"thoughtSignature"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
		Index        *int   `json:"index"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		TotalTokenCount      int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
	ResponseID   string `json:"responseId"`
	Error        *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Details []struct {
			Type       string `json:"@type"`
			Reason     string `json:"reason"`
			RetryDelay string `json:"retryDelay"`
		} `json:"details"`
	} `json:"error"`
}

func decodeNative(t *testing.T, s string) nativeResponse {
	t.Helper()
	var r nativeResponse
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return r
}

func TestFakeReply(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 3, APIKey: testKey})
	resp, body := postRaw(t, u, generate, nativeHello, keyHeader)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	r := decodeNative(t, body)
	if len(r.Candidates) != 1 {
		t.Fatalf("%s", body)
	}
	c := r.Candidates[0]
	if c.Content.Role != "model" || len(c.Content.Parts) != 1 || *c.Content.Parts[0].Text != "tok0 tok1 tok2" ||
		c.FinishReason != "STOP" || c.Index == nil || *c.Index != 0 {
		t.Errorf("candidate %+v", c)
	}
	if m := r.UsageMetadata; m == nil || m.PromptTokenCount != 6 || m.CandidatesTokenCount != 3 || m.TotalTokenCount != 9 {
		t.Errorf("usage %+v", r.UsageMetadata)
	}
	if r.ModelVersion != "gemini-2.5-flash" || r.ResponseID == "" {
		t.Errorf("model %q id %q", r.ModelVersion, r.ResponseID)
	}

	// max tokens, and the key in the query.
	_, body = postRaw(t, u, generate+"?key="+testKey,
		`{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":2}}`, nil)
	r = decodeNative(t, body)
	if len(r.Candidates) != 1 || *r.Candidates[0].Content.Parts[0].Text != "tok0 tok1" || r.Candidates[0].FinishReason != "MAX_TOKENS" {
		t.Errorf("max tokens: %s", body)
	}
}

func TestFakeStream(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 3})
	resp, body := postRaw(t, u, streamSSE, nativeHello, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(body, "[DONE]") || !strings.HasSuffix(body, "\r\n\r\n") {
		t.Errorf("stream framing: %q", body)
	}
	events := strings.Split(strings.TrimSuffix(body, "\r\n\r\n"), "\r\n\r\n")
	if len(events) != 3 {
		t.Fatalf("%d events: %q", len(events), body)
	}
	for i, ev := range events {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || strings.Contains(data, "\n") {
			t.Fatalf("event %d: %q", i, ev)
		}
		r := decodeNative(t, data)
		c := r.Candidates[0]
		if *c.Content.Parts[0].Text != fake.Token(i) {
			t.Errorf("event %d text %q", i, *c.Content.Parts[0].Text)
		}
		if (c.FinishReason == "STOP") != (i == 2) {
			t.Errorf("event %d finish %q", i, c.FinishReason)
		}
		if r.UsageMetadata == nil || r.UsageMetadata.CandidatesTokenCount != i+1 || r.UsageMetadata.PromptTokenCount != 6 {
			t.Errorf("event %d: usage %+v, want running totals", i, r.UsageMetadata)
		}
	}

	// Without alt=sse the endpoint answers one JSON array.
	_, body = postRaw(t, u, strings.TrimSuffix(streamSSE, "?alt=sse"), nativeHello, nil)
	var arr []nativeResponse
	if err := json.Unmarshal([]byte(body), &arr); err != nil || len(arr) != 3 || arr[2].Candidates[0].FinishReason != "STOP" {
		t.Errorf("array stream %q: %v", body, err)
	}

	// Midstream error: some chunks, then an error object, then the close.
	_, body = postRaw(t, u, strings.Replace(streamSSE, "gemini-2.5-flash", "fault-midstream-error", 1), nativeHello, nil)
	events = strings.Split(strings.TrimSuffix(body, "\r\n\r\n"), "\r\n\r\n")
	last := decodeNative(t, strings.TrimPrefix(events[len(events)-1], "data: "))
	if len(events) != 2 || last.Error == nil || last.Error.Code != 500 || last.Error.Status != "INTERNAL" {
		t.Errorf("midstream error: %q", body)
	}
}

func TestFakeTools(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 2})
	offer := `"tools":[{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]}]`
	for _, model := range []string{"gemini-2.5-flash", "gemini-3-flash"} {
		_, body := postRaw(t, u, "/v1beta/models/"+model+":generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"Weather?"}]}],`+offer+`}`, nil)
		r := decodeNative(t, body)
		p := r.Candidates[0].Content.Parts[0]
		if p.FunctionCall == nil || p.FunctionCall.Name != "get_weather" || compact(p.FunctionCall.Args) != fake.ToolArguments ||
			p.FunctionCall.ID != "" || r.Candidates[0].FinishReason != "STOP" {
			t.Errorf("%s: %s", model, body)
		}
		if (p.ThoughtSignature != "") != strings.HasPrefix(model, "gemini-3") {
			t.Errorf("%s: signature %q", model, p.ThoughtSignature)
		}
	}
	// A function response as the last turn gets text.
	_, body := postRaw(t, u, generate, `{"contents":[{"role":"user","parts":[{"text":"Weather?"}]},
		{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Moscow"}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"result":"snow"}}}]}],`+offer+`}`, nil)
	if r := decodeNative(t, body); r.Candidates[0].Content.Parts[0].Text == nil {
		t.Errorf("after a tool result: %s", body)
	}
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	_ = json.Compact(&b, raw)
	return b.String()
}

func TestFakeRefusals(t *testing.T) {
	u := startFake(t, fake.Options{APIKey: testKey})
	for _, tc := range []struct {
		name, path, body string
		header           map[string]string
		status           int
		gstatus, msg     string
	}{
		{"no key", generate, nativeHello, nil, 403, "PERMISSION_DENIED", "unregistered callers"},
		{"wrong key", generate, nativeHello, map[string]string{"x-goog-api-key": "AIza-wrong"}, 400, "INVALID_ARGUMENT", "API key not valid"},
		{"bad JSON", generate, `{"contents":`, keyHeader, 400, "INVALID_ARGUMENT", "Invalid JSON payload"},
		{"unknown field", generate, `{"contents":[{"parts":[{"text":"x"}]}],"messages":[]}`, keyHeader, 400, "INVALID_ARGUMENT", `Unknown name "messages"`},
		{"unknown generation field", generate, `{"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"max_tokens":3}}`, keyHeader, 400, "INVALID_ARGUMENT", `Unknown name "max_tokens"`},
		{"no contents", generate, `{"contents":[]}`, keyHeader, 400, "INVALID_ARGUMENT", "contents is not specified"},
		{"role", generate, `{"contents":[{"role":"assistant","parts":[{"text":"x"}]}]}`, keyHeader, 400, "INVALID_ARGUMENT", "valid role"},
		{"empty part", generate, `{"contents":[{"role":"user","parts":[{}]}]}`, keyHeader, 400, "INVALID_ARGUMENT", "oneof field 'data'"},
		{"response not object", generate, `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":"x"}}]}]}`, keyHeader, 400, "INVALID_ARGUMENT", "response"},
		{"schema subset", generate, `{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}}]}]}`, keyHeader, 400, "INVALID_ARGUMENT", `Unknown name "additionalProperties"`},
		{"empty object schema", generate, `{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{}}}]}]}`, keyHeader, 400, "INVALID_ARGUMENT", "should be non-empty for OBJECT type"},
		{"stop sequences", generate, `{"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"stopSequences":["1","2","3","4","5","6"]}}`, keyHeader, 400, "INVALID_ARGUMENT", "stop_sequences"},
		{"missing signature", "/v1beta/models/gemini-3-pro:generateContent", `{"contents":[{"role":"user","parts":[{"text":"x"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, keyHeader, 400, "INVALID_ARGUMENT", "missing a `thought_signature`"},
		{"forged signature", "/v1beta/models/gemini-3-pro:generateContent", `{"contents":[{"role":"user","parts":[{"text":"x"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"Zm9yZ2Vk"}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, keyHeader, 400, "INVALID_ARGUMENT", "thought_signature"},
		{"unknown method", "/v1beta/models/gemini-2.5-flash:countTokens", nativeHello, keyHeader, 404, "NOT_FOUND", "Method not found"},
		{"429", strings.Replace(generate, "gemini-2.5-flash", "fault-429", 1), nativeHello, keyHeader, 429, "RESOURCE_EXHAUSTED", "Please retry in 2s"},
		{"quota", strings.Replace(generate, "gemini-2.5-flash", "fault-quota", 1), nativeHello, keyHeader, 429, "RESOURCE_EXHAUSTED", "exceeded your current quota"},
		{"location", strings.Replace(generate, "gemini-2.5-flash", "fault-location", 1), nativeHello, keyHeader, 400, "FAILED_PRECONDITION", "User location is not supported"},
		{"503", strings.Replace(generate, "gemini-2.5-flash", "fault-503", 1), nativeHello, keyHeader, 503, "UNAVAILABLE", "overloaded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := postRaw(t, u, tc.path, tc.body, tc.header)
			r := decodeNative(t, body)
			if resp.StatusCode != tc.status || r.Error == nil || r.Error.Code != tc.status || r.Error.Status != tc.gstatus ||
				!strings.Contains(r.Error.Message, tc.msg) {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if !strings.Contains(body, "\n  \"error\": {") {
				t.Errorf("error body not indented as Google's: %s", body)
			}
			retry := ""
			for _, d := range r.Error.Details {
				retry += d.RetryDelay
			}
			if (retry != "") != (tc.name == "429") {
				t.Errorf("RetryInfo %q", retry)
			}
		})
	}
}
