package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/gemini"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

const testKey = "AIzaSy-fake-upstream-key-0123456789"

// upstream is a fake Gemini API on loopback.
type upstream struct {
	*adaptertest.Upstream

	mu   sync.Mutex
	urls []string // request URLs, as the server saw them
}

func startFake(t *testing.T, opts fake.Options) *upstream {
	t.Helper()
	u := &upstream{}
	next := opts.OnRequest
	opts.OnRequest = func(r *http.Request, body []byte) {
		u.mu.Lock()
		u.urls = append(u.urls, r.URL.String())
		u.mu.Unlock()
		if next != nil {
			next(r, body)
		}
	}
	u.Upstream = adaptertest.StartFake(t, opts, nil)
	return u
}

func (u *upstream) lastURL() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.urls) == 0 {
		return ""
	}
	return u.urls[len(u.urls)-1]
}

func (u *upstream) provider(t *testing.T, mod func(*shlyuz.UpstreamConfig)) *gemini.Provider {
	t.Helper()
	cfg := shlyuz.UpstreamConfig{Name: "fake-gemini", Protocol: "gemini", BaseURL: u.TS.URL + "/", APIKey: testKey}
	if mod != nil {
		mod(&cfg)
	}
	p, err := gemini.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseIdleConnections)
	return p
}

// request builds an UpstreamRequest from a client body, for the public model google/<model>.
func request(t *testing.T, model string, stream bool, body string) *shlyuz.UpstreamRequest {
	t.Helper()
	r := adaptertest.Request(t, model, stream, body)
	r.Model = "google/" + model
	return r
}

func choice(t *testing.T, resp *shlyuz.ChatResponse) (adaptertest.Message, string) {
	t.Helper()
	c := adaptertest.OnlyChoice(t, resp)
	return c.Message, c.FinishReason
}

func TestChat(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 5, APIKey: testKey})
	p := u.provider(t, func(c *shlyuz.UpstreamConfig) { c.Headers = map[string]string{"X-Goog-User-Project": "proj-1"} })
	req := request(t, "gemini-2.5-flash", false, `{"model":"google/gemini-2.5-flash","messages":[
		{"role":"system","content":"Be brief."},
		{"role":"user","content":"Hello there, how are you?"}],
		"temperature":0.2,"top_p":0.9,"stop":["END"],"seed":7,"response_format":{"type":"json_object"},"x_unknown":1}`)
	req.MaxTokens = 100
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	m, finish := choice(t, resp)
	if m.Role != "assistant" || m.Content == nil || *m.Content != "tok0 tok1 tok2 tok3 tok4" || finish != "stop" {
		t.Errorf("message = %+v finish %q", m, finish)
	}
	// "Be brief." (9) + "Hello there, how are you?" (25) = 34 chars → 8 tokens.
	want := shlyuz.Usage{PromptTokens: 8, CompletionTokens: 5, TotalTokens: 13}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.FinishReason != "stop" || resp.Created == 0 {
		t.Errorf("response = %+v", resp)
	}

	sent := u.SentBody(t)
	for field, want := range map[string]string{
		"contents":          `[{"role":"user","parts":[{"text":"Hello there, how are you?"}]}]`,
		"systemInstruction": `{"parts":[{"text":"Be brief."}]}`,
		"generationConfig":  `{"maxOutputTokens":100,"temperature":0.2,"topP":0.9,"stopSequences":["END"],"seed":7,"responseMimeType":"application/json"}`,
	} {
		if got := string(sent[field]); got != want {
			t.Errorf("sent %s = %s, want %s", field, got, want)
		}
	}
	for _, field := range []string{"x_unknown", "messages", "model", "temperature"} {
		if _, ok := sent[field]; ok {
			t.Errorf("sent %s upstream", field)
		}
	}
	h := u.Fake.LastHeader()
	if h.Get("X-Goog-Api-Key") != testKey || h.Get("Authorization") != "" || h.Get("X-Goog-User-Project") != "proj-1" ||
		h.Get("Content-Type") != "application/json" {
		t.Errorf("headers = %v", h)
	}
	if got := u.lastURL(); got != "/v1beta/models/gemini-2.5-flash:generateContent" {
		t.Errorf("URL = %q", got)
	}
}

func TestChatStream(t *testing.T) {
	const image = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	for _, tc := range []struct {
		name        string
		body        string
		maxTokens   int64
		wantContent string
		wantFinish  string
		wantUsage   shlyuz.Usage
	}{
		{
			name:        "plain, client asked usage",
			body:        `{"messages":[{"role":"user","content":"Hello there, how are you?"}],"stream":true,"stream_options":{"include_usage":true}}`,
			wantContent: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			wantFinish:  "stop",
			wantUsage:   shlyuz.Usage{PromptTokens: 6, CompletionTokens: 8, TotalTokens: 14},
		},
		{
			name:        "vision",
			body:        `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe this picture please"},{"type":"image_url","image_url":{"url":"` + image + `"}},{"type":"image_url","image_url":{"url":"https://example.com/cat.webp?x=1"}}]}]}`,
			wantContent: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			wantFinish:  "stop",
			wantUsage:   shlyuz.Usage{PromptTokens: 7 + 2*85, CompletionTokens: 8, TotalTokens: 185},
		},
		{
			name:        "max_tokens caps the reply",
			body:        adaptertest.HelloBody,
			maxTokens:   3,
			wantContent: "tok0 tok1 tok2",
			wantFinish:  "length",
			wantUsage:   shlyuz.Usage{PromptTokens: 6, CompletionTokens: 3, TotalTokens: 9},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := startFake(t, fake.Options{ReplyTokens: 8, APIKey: testKey})
			p := u.provider(t, nil)
			req := request(t, "gemini-2.5-flash", true, tc.body)
			req.MaxTokens = tc.maxTokens
			st, err := p.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			events, err := adaptertest.ReadAll(st)
			if err != io.EOF {
				t.Fatalf("stream ended with %v, want io.EOF", err)
			}
			clientAsked := strings.Contains(tc.body, `"include_usage":true`)
			var content strings.Builder
			var usage *shlyuz.Usage
			var finish string
			var tokens int64
			for i, ev := range events {
				tokens += ev.CompletionTokens
				if ev.FinishReason != "" {
					if finish != "" {
						t.Errorf("event %d: a second finish %q", i, ev.FinishReason)
					}
					finish = ev.FinishReason
				}
				if ev.Usage != nil {
					usage = ev.Usage
				}
				if ev.Data == nil {
					t.Errorf("event %d has no data", i)
					continue
				}
				var c adaptertest.Chunk
				if err := json.Unmarshal(ev.Data, &c); err != nil {
					t.Fatalf("event %d: %v: %s", i, err, ev.Data)
				}
				if c.ID != "gen-abc" || c.Model != "google/gemini-2.5-flash" || c.Object != "chat.completion.chunk" || len(c.Choices) != 1 {
					t.Errorf("event %d: %s", i, ev.Data)
				}
				if clientAsked != (c.Usage != nil) {
					t.Errorf("event %d: usage member %s, client asked %v", i, c.Usage, clientAsked)
				}
				if (i == 0) != (c.Choices[0].Delta.Role == "assistant") {
					t.Errorf("event %d: role %q", i, c.Choices[0].Delta.Role)
				}
				if c.Choices[0].Delta.Content != nil {
					content.WriteString(*c.Choices[0].Delta.Content)
				}
				if (c.Choices[0].FinishReason != nil) != (ev.FinishReason != "") {
					t.Errorf("event %d: finish_reason in data and event disagree", i)
				}
			}
			if content.String() != tc.wantContent {
				t.Errorf("content = %q, want %q", content.String(), tc.wantContent)
			}
			if finish != tc.wantFinish {
				t.Errorf("finish = %q, want %q", finish, tc.wantFinish)
			}
			if usage == nil || *usage != tc.wantUsage {
				t.Errorf("usage = %+v, want %+v", usage, tc.wantUsage)
			}
			if tokens != tc.wantUsage.CompletionTokens {
				t.Errorf("counted tokens = %d, want %d", tokens, tc.wantUsage.CompletionTokens)
			}
			if got := u.lastURL(); got != "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse" {
				t.Errorf("URL = %q", got)
			}
			if tc.maxTokens > 0 && !strings.Contains(string(u.SentBody(t)["generationConfig"]), `"maxOutputTokens":3`) {
				t.Errorf("sent generationConfig %s", u.SentBody(t)["generationConfig"])
			}
			if _, err := st.Next(); err != io.EOF {
				t.Errorf("Next after the end = %v, want io.EOF again", err)
			}
		})
	}
}

const toolsBody = `{"messages":[{"role":"user","content":"Weather in Moscow?"}],
	"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather by city",
	"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}}],
	"tool_choice":"auto"}`

// followUp is the conversation after the tool call, with the assistant's call as the client echoes it.
func followUp(id, args string) string {
	return `{"messages":[{"role":"user","content":"Weather in Moscow?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":` + jsonString(id) + `,"type":"function","function":{"name":"get_weather","arguments":` + jsonString(args) + `}}]},
		{"role":"tool","tool_call_id":` + jsonString(id) + `,"content":"-5C, snow"}],
		"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestTools(t *testing.T) {
	for _, model := range []string{"gemini-2.5-flash", "gemini-3-pro-preview"} {
		for _, stream := range []bool{false, true} {
			name := model
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				u := startFake(t, fake.Options{ReplyTokens: 4})
				p := u.provider(t, nil)
				id, name, args, finish := callTool(t, p, request(t, model, stream, toolsBody))
				if name != "get_weather" || args != fake.ToolArguments || finish != "tool_calls" {
					t.Fatalf("tool call %q %q %q, finish %q", id, name, args, finish)
				}
				if !strings.HasPrefix(id, "call_abc_0") {
					t.Errorf("tool call id %q", id)
				}
				if strings.HasPrefix(model, "gemini-3") != strings.Contains(id, "__thought__") {
					t.Errorf("tool call id %q: signature carried = %v", id, strings.Contains(id, "__thought__"))
				}
				sent := u.SentBody(t)
				if got := string(sent["tools"]); !strings.Contains(got, `"parametersJsonSchema":{"type":"object"`) {
					t.Errorf("sent tools %s", got)
				}
				if got := string(sent["toolConfig"]); got != `{"functionCallingConfig":{"mode":"AUTO"}}` {
					t.Errorf("sent toolConfig %s", got)
				}

				// The follow-up with the result gets text; the fake refuses a
				// Gemini 3 call that comes back without its signature.
				resp, err := p.Chat(context.Background(), request(t, model, false, followUp(id, args)))
				if err != nil {
					t.Fatal(err)
				}
				m, finish := choice(t, resp)
				if m.Content == nil || *m.Content != "tok0 tok1 tok2 tok3" || finish != "stop" || len(m.ToolCalls) != 0 {
					t.Errorf("follow-up: %+v finish %q", m, finish)
				}
				var contents []struct {
					Role  string            `json:"role"`
					Parts []json.RawMessage `json:"parts"`
				}
				if err := json.Unmarshal(u.SentBody(t)["contents"], &contents); err != nil || len(contents) != 3 {
					t.Fatalf("sent contents %s: %v", u.SentBody(t)["contents"], err)
				}
				if contents[1].Role != "model" || contents[2].Role != "user" {
					t.Errorf("roles %q %q", contents[1].Role, contents[2].Role)
				}
				if got := string(contents[2].Parts[0]); got != `{"functionResponse":{"name":"get_weather","response":{"result":"-5C, snow"}}}` {
					t.Errorf("tool result part %s", got)
				}
				if sig := strings.SplitN(id, "__thought__", 2); len(sig) == 2 && !strings.Contains(string(contents[1].Parts[0]), `"thoughtSignature":"`+sig[1]+`"`) {
					t.Errorf("signature not restored: %s", contents[1].Parts[0])
				}
			})
		}
	}
}

// callTool makes the call and returns the first tool call, whether streamed or not.
func callTool(t *testing.T, p *gemini.Provider, req *shlyuz.UpstreamRequest) (id, name, args, finish string) {
	t.Helper()
	if !req.Stream {
		resp, err := p.Chat(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		m, finish := choice(t, resp)
		if len(m.ToolCalls) != 1 || m.Content != nil || m.ToolCalls[0].Type != "function" {
			t.Fatalf("message %+v (%s)", m, resp.Choices)
		}
		if resp.Usage.CompletionTokens != fake.ToolCallTokens {
			t.Errorf("usage %+v", resp.Usage)
		}
		tc := m.ToolCalls[0]
		return tc.ID, tc.Function.Name, tc.Function.Arguments, finish
	}
	st, err := p.ChatStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := adaptertest.ReadAll(st)
	if err != io.EOF || len(events) == 0 {
		t.Fatalf("%d events, err %v", len(events), err)
	}
	for _, ev := range events {
		if ev.FinishReason != "" {
			finish = ev.FinishReason
		}
		var c adaptertest.Chunk
		if err := json.Unmarshal(ev.Data, &c); err != nil {
			t.Fatalf("%v: %s", err, ev.Data)
		}
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			if tc.Index != 0 || tc.Type != "function" || id != "" {
				t.Errorf("tool call delta %s", ev.Data)
			}
			id, name, args = tc.ID, tc.Function.Name, tc.Function.Arguments
		}
	}
	return id, name, args, finish
}

// TestToolsForeignHistory: a Gemini 3 conversation whose tool call was made
// elsewhere (an id without a signature) still goes through.
func TestToolsForeignHistory(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 2})
	p := u.provider(t, nil)
	resp, err := p.Chat(context.Background(), request(t, "gemini-3-flash", false, followUp("call_from_openai_1", `{"city":"Moscow"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := choice(t, resp); m.Content == nil || *m.Content != "tok0 tok1" {
		t.Errorf("message %+v", m)
	}
	if !strings.Contains(string(u.SentBody(t)["contents"]), `"thoughtSignature":"skip_thought_signature_validator"`) {
		t.Errorf("no skip signature: %s", u.SentBody(t)["contents"])
	}
}

// TestFaultsBeforeFirstByte checks the mapping of every upstream failure that
// comes before the stream starts, for Chat and ChatStream alike.
func TestFaultsBeforeFirstByte(t *testing.T) {
	u := startFake(t, fake.Options{})
	for _, tc := range []struct {
		fault      string
		status     int
		code       string
		upstream   bool
		retryAfter time.Duration
		msg        string
	}{
		{fault: "500", status: 502, code: "upstream_error", upstream: true, msg: "INTERNAL"},
		{fault: "503", status: 502, code: "upstream_error", upstream: true, msg: "overloaded"},
		{fault: "502", status: 502, code: "upstream_error", upstream: true},
		{fault: "504", status: 504, code: "upstream_timeout", upstream: true},
		{fault: "429", status: 429, code: "rate_limited", upstream: true, retryAfter: 2 * time.Second, msg: "rate limiting"},
		{fault: "quota", status: 502, code: "upstream_error", upstream: true, msg: "quota"},
		{fault: "400", status: 400, code: "invalid_value", upstream: false, msg: "input token count"},
		{fault: "401", status: 502, code: "upstream_error", upstream: true, msg: "credentials"},
		{fault: "403", status: 502, code: "upstream_error", upstream: true, msg: "credentials"},
		{fault: "404", status: 502, code: "upstream_error", upstream: true, msg: "does not serve the model"},
		{fault: "location", status: 502, code: "upstream_error", upstream: true, msg: "location"},
		{fault: "blocked", status: 400, code: "content_filter", upstream: false, msg: "PROHIBITED_CONTENT"},
	} {
		for _, stream := range []bool{false, true} {
			name := tc.fault
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				p := u.provider(t, nil)
				req := request(t, "fault-"+tc.fault, stream, adaptertest.HelloBody)
				var err error
				if stream {
					var st shlyuz.ChatStream
					st, err = p.ChatStream(context.Background(), req)
					if err == nil {
						// A blocked prompt is a 200 stream whose first chunk says so.
						var events []shlyuz.StreamEvent
						events, err = adaptertest.ReadAll(st)
						st.Close()
						if len(events) != 0 {
							t.Errorf("%d events before the error", len(events))
						}
					}
				} else {
					_, err = p.Chat(context.Background(), req)
				}
				e := adaptertest.AsError(t, err, tc.status, tc.code, tc.upstream)
				if e.RetryAfter != tc.retryAfter {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tc.retryAfter)
				}
				if !strings.Contains(e.Message, tc.msg) {
					t.Errorf("message %q does not mention %q", e.Message, tc.msg)
				}
				if strings.Contains(e.Message, testKey) {
					t.Errorf("message %q leaks the key", e.Message)
				}
			})
		}
	}
}

func TestWrongKeyNotLeaked(t *testing.T) {
	u := startFake(t, fake.Options{APIKey: testKey})
	for _, key := range []string{"AIzaSy-wrong-key-123456789", ""} {
		p := u.provider(t, func(c *shlyuz.UpstreamConfig) { c.APIKey = key })
		_, err := p.Chat(context.Background(), request(t, "gemini-2.5-flash", false, adaptertest.HelloBody))
		e := adaptertest.AsError(t, err, 502, "upstream_error", true)
		if !strings.Contains(e.Message, "credentials") {
			t.Errorf("message %q", e.Message)
		}
		for _, part := range []string{"AIza", "6789", "not valid"} {
			if strings.Contains(e.Message, part) || (e.Cause != nil && strings.Contains(e.Cause.Error(), part)) {
				t.Errorf("error %q (cause %v) leaks %q", e.Message, e.Cause, part)
			}
		}
		if strings.Contains(u.lastURL(), "key") {
			t.Errorf("the key went in the URL: %s", u.lastURL())
		}
	}
}

func TestMalformedReply(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	for _, fault := range []string{"malformed", "cut", "midstream-error"} {
		_, err := p.Chat(context.Background(), request(t, "fault-"+fault, false, adaptertest.HelloBody))
		adaptertest.AsError(t, err, 502, "upstream_error", true)
	}
}

// TestStreamFaults checks failures after the stream started: Next returns them.
func TestStreamFaults(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8})
	for _, tc := range []struct {
		fault string
		msg   string
	}{
		{"cut", "broke off"},
		{"midstream-error", "internal error"},
		{"malformed", "malformed"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			p := u.provider(t, nil)
			st, err := p.ChatStream(context.Background(), request(t, "fault-"+tc.fault, true, adaptertest.HelloBody))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			events, err := adaptertest.ReadAll(st)
			e := adaptertest.AsError(t, err, 502, "upstream_error", true)
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not mention %q", e.Message, tc.msg)
			}
			var tokens int64
			for _, ev := range events {
				tokens += ev.CompletionTokens
				if ev.FinishReason != "" {
					t.Errorf("a finish before the failure")
				}
			}
			if len(events) != 4 || tokens != 4 { // the fake fails half way through 8 words
				t.Errorf("%d events, %d tokens before the failure, want 4 and 4", len(events), tokens)
			}
			if _, err2 := st.Next(); err2 != err {
				t.Errorf("Next after the failure = %v, want the same error", err2)
			}
		})
	}
}

// TestStreamEndsWithoutFinish: a stream closed cleanly before any finishReason is a cut.
func TestStreamEndsWithoutFinish(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":1,\"totalTokenCount\":4}}\r\n\r\n")
	}))
	defer ts.Close()
	p, err := gemini.New(shlyuz.UpstreamConfig{BaseURL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.ChatStream(context.Background(), request(t, "m", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := adaptertest.ReadAll(st)
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if len(events) != 1 || events[0].Usage == nil || events[0].Usage.CompletionTokens != 1 || !strings.Contains(e.Message, "before it finished") {
		t.Errorf("%d events, err %v", len(events), e)
	}
}

func TestStreamNoUsage(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	st, err := p.ChatStream(context.Background(), request(t, "fault-nousage", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := adaptertest.ReadAll(st)
	if err != io.EOF {
		t.Fatalf("err = %v", err)
	}
	var tokens int64
	for _, ev := range events {
		if ev.Usage != nil {
			t.Errorf("usage reported: %+v", ev.Usage)
		}
		tokens += ev.CompletionTokens
	}
	if tokens != 16 {
		t.Errorf("counted %d tokens, want 16", tokens)
	}
}

// TestClientErrors: requests the adapter cannot translate fail before any call, as the client's fault.
func TestClientErrors(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	for _, tc := range []struct{ body, param string }{
		{`{}`, "messages"},
		{`{"messages":[{"role":"system","content":"only a system prompt"}]}`, "messages"},
		{`{"messages":[{"role":"user","content":"hi"}],"temperature":3}`, "temperature"},
		{`{"messages":[{"role":"user","content":"hi"}],"stop":["a","b","c","d","e","f"]}`, "stop"},
		{`{"messages":[{"role":"user","content":"hi"}],"n":2}`, "n"},
		{`{"messages":[{"role":"tool","tool_call_id":"call_x","content":"1"}]}`, "messages[0].tool_call_id"},
		{`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64"}}]}]}`, "messages[0].content[0].image_url.url"},
		{`{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"web_search"}]}`, "tools[0].type"},
		{`{"messages":[{"role":"assistant","content":"x","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"[1]"}}]}]}`, "messages[0].tool_calls[0].function.arguments"},
	} {
		before := u.Fake.Requests()
		_, err := p.Chat(context.Background(), request(t, "gemini-2.5-flash", false, tc.body))
		e := adaptertest.AsError(t, err, 400, codeOf(err), false)
		if e.Param == nil || *e.Param != tc.param {
			t.Errorf("%s: param %v, want %q (%s)", tc.body, e.Param, tc.param, e.Message)
		}
		if u.Fake.Requests() != before {
			t.Errorf("%s: the request went upstream", tc.body)
		}
	}
}

func codeOf(err error) string {
	var e *shlyuz.Error
	if errors.As(err, &e) && (e.Code == "missing_field" || e.Code == "invalid_value") {
		return e.Code
	}
	return "invalid_value"
}

func TestNew(t *testing.T) {
	for _, base := range []string{"ftp://x", "http://", "https://x/?key=1", ":"} {
		if _, err := gemini.New(shlyuz.UpstreamConfig{BaseURL: base}); err == nil {
			t.Errorf("New(%q) succeeded", base)
		}
	}
	if _, err := gemini.New(shlyuz.UpstreamConfig{BaseURL: "https://x", CAFile: "/nonexistent.pem"}); err == nil {
		t.Error("New with a missing CA file succeeded")
	}
	p, err := gemini.New(shlyuz.UpstreamConfig{})
	if err != nil || p.Name() != "" {
		t.Errorf("New with defaults: %v", err)
	}

	// A base URL that names the API version is taken as it is.
	u := startFake(t, fake.Options{ReplyTokens: 1})
	p = u.provider(t, func(c *shlyuz.UpstreamConfig) { c.BaseURL = u.TS.URL + "/v1beta/" })
	if _, err := p.Chat(context.Background(), request(t, "models/gemini-2.5-flash", false, adaptertest.HelloBody)); err != nil {
		t.Fatal(err)
	}
	if got := u.lastURL(); got != "/v1beta/models/gemini-2.5-flash:generateContent" {
		t.Errorf("URL = %q", got)
	}
}

// TestTransport runs the checks of timeouts, cancellation and connections
// that every adapter passes.
func TestTransport(t *testing.T) {
	adaptertest.Transport(t, adaptertest.Target{
		Provider: func(t *testing.T, u *adaptertest.Upstream, mod func(*shlyuz.UpstreamConfig)) shlyuz.Provider {
			return (&upstream{Upstream: u}).provider(t, mod)
		},
		Request: request,
		Model:   "gemini-2.5-flash",
		Faults:  "",
		Lead:    2, // two words
		Closed:  gemini.ErrStreamClosed,
	})
}
