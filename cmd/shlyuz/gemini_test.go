package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// geminiTestModels are a Gemini model under its catalog id, which Gemini
// clients call by Google's own name (its alias), served by the fake Gemini
// upstream ("google/" routes there).
const geminiTestModels = `  - {id: "google/gemini-2.5-flash", name: "Gemini 2.5 Flash", aliases: [gemini-2.5-flash], context_length: 100000, max_output_tokens: 4096, input_modalities: [text, image], output_modalities: [text], usd: {prompt_usd_per_mtok: "1", completion_usd_per_mtok: "2"}}
`

// geminiPost sends body to a Gemini API path with the key in x-goog-api-key.
func geminiPost(t *testing.T, path, key string, body any) (*http.Response, []byte) {
	t.Helper()
	headers := map[string]string{}
	if key != "" {
		headers["X-Goog-Api-Key"] = key
	}
	return postWith(t, path, body, headers)
}

// geminiResponse is Google's GenerateContentResponse, as its SDK types name it.
type geminiResponse struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string `json:"text"`
				Thought      bool   `json:"thought"`
				FunctionCall *struct {
					ID   string         `json:"id"`
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
		Index        int    `json:"index"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount     int64 `json:"promptTokenCount"`
		CandidatesTokenCount int64 `json:"candidatesTokenCount"`
		TotalTokenCount      int64 `json:"totalTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
	Error        *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

func (g *geminiResponse) text() string {
	var b strings.Builder
	for _, c := range g.Candidates {
		for _, p := range c.Content.Parts {
			if !p.Thought {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String()
}

// geminiChunks splits a stream: "data: …" events (alt=sse) or a JSON array.
func geminiChunks(t *testing.T, raw []byte, sse bool) []geminiResponse {
	t.Helper()
	var out []geminiResponse
	if !sse {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("not a JSON array: %v\n%s", err, raw)
		}
		return out
	}
	for _, ev := range strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n\n") {
		ev = strings.TrimSpace(ev)
		if ev == "" {
			continue
		}
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok {
			t.Fatalf("not an event: %q", ev)
		}
		var g geminiResponse
		if err := json.Unmarshal([]byte(data), &g); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		out = append(out, g)
	}
	return out
}

// The Gemini API for clients: a Gemini model as it came (by Google's own
// name, under both roots), others translated; whole replies, both stream
// forms; each billed as chat is, the charge in X-Generation-Credits.
func TestGeminiGenerateContent(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	prompt := map[string]any{
		"systemInstruction": map[string]any{"parts": []map[string]any{{"text": "Be brief."}}},
		"contents":          []map[string]any{{"role": "user", "parts": []map[string]any{{"text": "Say hi."}}}},
		"generationConfig":  map[string]any{"maxOutputTokens": 100, "temperature": 0.5},
	}
	for _, model := range []string{"gemini-2.5-flash", "models/gemini-2.5-flash", "google/gemini-2.5-flash", "test/model", "claude/model"} {
		for _, root := range []string{"/api/v1/v1beta", "/api/v1beta"} {
			for _, method := range []string{":generateContent", ":streamGenerateContent?alt=sse", ":streamGenerateContent"} {
				t.Run(model+root+method, func(t *testing.T) {
					before := balance(t, h.base, key).Data.TotalCredits
					resp, raw := geminiPost(t, root+"/models/"+strings.TrimPrefix(model, "models/")+method, key, prompt)
					if resp.StatusCode != 200 {
						t.Fatalf("%d %s", resp.StatusCode, raw)
					}
					var chunks []geminiResponse
					if strings.Contains(method, "stream") {
						chunks = geminiChunks(t, raw, strings.Contains(method, "sse"))
					} else {
						var g geminiResponse
						if err := json.Unmarshal(raw, &g); err != nil {
							t.Fatalf("%v: %s", err, raw)
						}
						chunks = []geminiResponse{g}
					}
					var text strings.Builder
					last := chunks[len(chunks)-1]
					for _, c := range chunks {
						text.WriteString(c.text())
					}
					if !strings.HasPrefix(text.String(), "tok0 tok1") {
						t.Fatalf("text %q in %s", text.String(), raw)
					}
					if len(last.Candidates) == 0 || last.Candidates[0].FinishReason != "STOP" || last.Candidates[0].Content.Role != "model" {
						t.Fatalf("last chunk %s", raw)
					}
					if u := last.UsageMetadata; u == nil || u.PromptTokenCount <= 0 || u.CandidatesTokenCount <= 0 || u.TotalTokenCount != u.PromptTokenCount+u.CandidatesTokenCount {
						t.Fatalf("usage %+v in %s", u, raw)
					}
					g := checkDebit(t, key, resp, before)
					if !strings.Contains(method, "stream") {
						if got := resp.Header.Get("X-Generation-Credits"); got != strconv.FormatInt(g.Data.Credits, 10) {
							t.Fatalf("X-Generation-Credits %q, generation %d", got, g.Data.Credits)
						}
					}
				})
			}
		}
	}
}

// A function-calling round trip in Gemini's terms, natively and translated:
// a functionCall comes back, its functionResponse is answered with text.
func TestGeminiFunctionCalling(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	tools := []map[string]any{{"functionDeclarations": []map[string]any{{
		"name": "get_weather", "description": "Weather of a city",
		"parameters": map[string]any{"type": "OBJECT", "properties": map[string]any{"city": map[string]any{"type": "STRING"}}, "required": []string{"city"}},
	}}}}
	for _, model := range []string{"gemini-2.5-flash", "test/model"} {
		for _, method := range []string{":generateContent", ":streamGenerateContent?alt=sse"} {
			t.Run(model+method, func(t *testing.T) {
				user := map[string]any{"role": "user", "parts": []map[string]any{{"text": "Weather in Moscow?"}}}
				resp, raw := geminiPost(t, "/api/v1/v1beta/models/"+model+method, key, map[string]any{"contents": []any{user}, "tools": tools})
				if resp.StatusCode != 200 {
					t.Fatalf("%d %s", resp.StatusCode, raw)
				}
				var chunks []geminiResponse
				if strings.Contains(method, "stream") {
					chunks = geminiChunks(t, raw, true)
				} else {
					var g geminiResponse
					_ = json.Unmarshal(raw, &g)
					chunks = []geminiResponse{g}
				}
				var call map[string]any
				for _, c := range chunks {
					for _, cand := range c.Candidates {
						for _, p := range cand.Content.Parts {
							if fc := p.FunctionCall; fc != nil {
								if fc.Name != "get_weather" || fc.Args["city"] == nil {
									t.Fatalf("call %+v", fc)
								}
								call = map[string]any{"name": fc.Name, "args": fc.Args}
								if fc.ID != "" {
									call["id"] = fc.ID
								}
							}
						}
					}
				}
				if call == nil {
					t.Fatalf("no functionCall in %s", raw)
				}
				callPart := map[string]any{"functionCall": call, "thoughtSignature": "skip_thought_signature_validator"}
				answer := map[string]any{"name": "get_weather", "response": map[string]any{"temperature": 20}}
				if id, ok := call["id"]; ok {
					answer["id"] = id
				}
				second := map[string]any{"contents": []any{user,
					map[string]any{"role": "model", "parts": []any{callPart}},
					map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": answer}}},
				}, "tools": tools}
				resp, raw = geminiPost(t, "/api/v1/v1beta/models/"+model+":generateContent", key, second)
				var g geminiResponse
				if resp.StatusCode != 200 || json.Unmarshal(raw, &g) != nil || !strings.HasPrefix(g.text(), "tok0") {
					t.Fatalf("after the result: %d %s", resp.StatusCode, raw)
				}
			})
		}
	}
}

// Refusals in Google's error shape, with Google's statuses; a balance that
// cannot pay is a used-up quota (429 RESOURCE_EXHAUSTED), never a charge.
func TestGeminiErrors(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	_, poor := account(t, h.base, 0, nil)
	ok := map[string]any{"contents": []map[string]any{{"role": "user", "parts": []map[string]any{{"text": "hi"}}}}}
	for _, tc := range []struct {
		name, path, key string
		body            any
		status          int
		grpc            string
	}{
		{"no key", "/api/v1/v1beta/models/gemini-2.5-flash:generateContent", "", ok, 401, "UNAUTHENTICATED"},
		{"bad key", "/api/v1/v1beta/models/gemini-2.5-flash:generateContent", "sk-nope", ok, 401, "UNAUTHENTICATED"},
		{"unknown model", "/api/v1beta/models/gemini-9-ultra:generateContent", key, ok, 404, "NOT_FOUND"},
		{"no contents", "/api/v1beta/models/gemini-2.5-flash:generateContent", key, map[string]any{}, 400, "INVALID_ARGUMENT"},
		{"bad role", "/api/v1beta/models/test/model:generateContent", key, map[string]any{"contents": []map[string]any{{"role": "robot", "parts": []map[string]any{{"text": "hi"}}}}}, 400, "INVALID_ARGUMENT"},
		{"not JSON", "/api/v1beta/models/gemini-2.5-flash:generateContent", key, "{", 400, "INVALID_ARGUMENT"},
		{"unknown method", "/api/v1beta/models/gemini-2.5-flash:embedEverything", key, ok, 404, "NOT_FOUND"},
		{"no balance", "/api/v1beta/models/gemini-2.5-flash:generateContent", poor, ok, 429, "RESOURCE_EXHAUSTED"},
		{"no balance, stream", "/api/v1beta/models/test/model:streamGenerateContent?alt=sse", poor, ok, 429, "RESOURCE_EXHAUSTED"},
		{"candidateCount above Google's 8", "/api/v1beta/models/test/model:generateContent", key, map[string]any{"contents": ok["contents"], "generationConfig": map[string]any{"candidateCount": 9}}, 400, "INVALID_ARGUMENT"},
		{"candidateCount negative", "/api/v1beta/models/test/model:generateContent", key, map[string]any{"contents": ok["contents"], "generationConfig": map[string]any{"candidateCount": -1}}, 400, "INVALID_ARGUMENT"},
		{"search tool on another upstream", "/api/v1beta/models/test/model:generateContent", key, map[string]any{"contents": ok["contents"], "tools": []map[string]any{{"googleSearch": map[string]any{}}}}, 400, "INVALID_ARGUMENT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any = tc.body
			if s, isStr := tc.body.(string); isStr {
				body = json.RawMessage(s)
			}
			var resp *http.Response
			var raw []byte
			if _, isRaw := body.(json.RawMessage); isRaw {
				req, _ := http.NewRequest("POST", h.base+tc.path, strings.NewReader(tc.body.(string)))
				req.Header.Set("X-Goog-Api-Key", tc.key)
				r, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ = io.ReadAll(r.Body)
				r.Body.Close()
				resp = r
			} else {
				resp, raw = geminiPost(t, tc.path, tc.key, body)
			}
			var g geminiResponse
			if err := json.Unmarshal(raw, &g); err != nil || g.Error == nil {
				t.Fatalf("%d %s", resp.StatusCode, raw)
			}
			if resp.StatusCode != tc.status || g.Error.Code != tc.status || g.Error.Status != tc.grpc || g.Error.Message == "" {
				t.Fatalf("%d %s, want %d %s", resp.StatusCode, raw, tc.status, tc.grpc)
			}
		})
	}
	if b := balance(t, h.base, key).Data.TotalCredits; b != 10_000_000 {
		t.Fatalf("refusals charged: balance %d", b)
	}
}

// countTokens is the gateway's own count, free; the key may come as ?key=
// or as a bearer token too.
func TestGeminiCountTokens(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	body := map[string]any{"contents": []map[string]any{{"role": "user", "parts": []map[string]any{{"text": strings.Repeat("word ", 100)}}}}}
	for _, path := range []string{"/api/v1beta/models/gemini-2.5-flash:countTokens?key=" + key, "/api/v1/v1beta/models/test/model:countTokens"} {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", h.base+path, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var c struct{ TotalTokens int64 }
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || json.Unmarshal(out, &c) != nil || c.TotalTokens < 100 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, out)
		}
	}
	if b := balance(t, h.base, key).Data.TotalCredits; b != 10_000_000 {
		t.Fatalf("countTokens charged: balance %d", b)
	}
}
