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
	if m.Role != "assistant" || m.Content == nil || *m.Content != `{"answer":"tok0"}` || finish != "stop" { // json_object: the fake's object
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

	adaptertest.CheckSent(t, u.SentBody(t), map[string]string{
		"contents":          `[{"role":"user","parts":[{"text":"Hello there, how are you?"}]}]`,
		"systemInstruction": `{"parts":[{"text":"Be brief."}]}`,
		"generationConfig":  `{"maxOutputTokens":100,"temperature":0.2,"topP":0.9,"stopSequences":["END"],"seed":7,"responseMimeType":"application/json"}`,
	}, "x_unknown", "messages", "model", "temperature")
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
	for _, tc := range []adaptertest.StreamCase{
		adaptertest.UsageAsked,
		{
			Name:    "vision",
			Body:    `{"messages":[{"role":"user","content":[{"type":"text","text":"Describe this picture please"},{"type":"image_url","image_url":{"url":"` + image + `"}},{"type":"image_url","image_url":{"url":"https://example.com/cat.webp?x=1"}}]}]}`,
			Content: "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7",
			Finish:  "stop",
			Usage:   shlyuz.Usage{PromptTokens: 7 + 2*85, CompletionTokens: 8, TotalTokens: 185},
		},
		adaptertest.Capped,
	} {
		t.Run(tc.Name, func(t *testing.T) {
			u := startFake(t, fake.Options{ReplyTokens: 8, APIKey: testKey})
			p := u.provider(t, nil)
			req := request(t, "gemini-2.5-flash", true, tc.Body)
			req.MaxTokens = tc.MaxTokens
			st, err := p.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			s := tc.Check(t, st, func(i int, ev shlyuz.StreamEvent, c *adaptertest.Chunk) {
				if c == nil {
					t.Errorf("event %d has no data", i)
					return
				}
				adaptertest.CheckChunk(t, i, c, "google/gemini-2.5-flash", tc.ClientAsked())
				if len(c.Choices) != 1 {
					t.Fatalf("event %d: %s", i, ev.Data)
				}
				if (i == 0) != (c.Choices[0].Delta.Role == "assistant") {
					t.Errorf("event %d: role %q", i, c.Choices[0].Delta.Role)
				}
				if (c.Choices[0].FinishReason != nil) != (ev.FinishReason != "") {
					t.Errorf("event %d: finish_reason in data and event disagree", i)
				}
			})
			finishes := 0
			for i, ev := range s.Events {
				if ev.FinishReason != "" {
					if finishes++; finishes > 1 {
						t.Errorf("event %d: a second finish %q", i, ev.FinishReason)
					}
				}
			}
			if got := u.lastURL(); got != "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse" {
				t.Errorf("URL = %q", got)
			}
			if tc.MaxTokens > 0 && !strings.Contains(string(u.SentBody(t)["generationConfig"]), `"maxOutputTokens":3`) {
				t.Errorf("sent generationConfig %s", u.SentBody(t)["generationConfig"])
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
	return adaptertest.FollowUp("Weather in Moscow?", id, args, "-5C, snow",
		`"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`)
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
	s := adaptertest.Collect(t, adaptertest.ReadToEnd(t, st), func(i int, _ shlyuz.StreamEvent, c *adaptertest.Chunk) {
		if c == nil {
			t.Fatalf("event %d has no data", i)
		}
	})
	if len(s.Events) == 0 {
		t.Fatal("no events")
	}
	for i, tc := range s.ToolDeltas {
		if tc.Index != 0 || tc.Type != "function" || i > 0 {
			t.Errorf("tool call delta %d: %+v", i, tc)
		}
	}
	return s.ToolID, s.ToolName, s.Args, s.Finish
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
	adaptertest.Faults(t, []adaptertest.Fault{
		{Fault: "500", Status: 502, Code: "upstream_error", Upstream: true, Msg: "INTERNAL"},
		{Fault: "503", Status: 502, Code: "upstream_error", Upstream: true, Msg: "overloaded"},
		{Fault: "502", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "504", Status: 504, Code: "upstream_timeout", Upstream: true},
		{Fault: "429", Status: 429, Code: "rate_limited", Upstream: true, RetryAfter: 2 * time.Second, Msg: "rate limiting"},
		{Fault: "quota", Status: 502, Code: "upstream_error", Upstream: true, Msg: "quota"},
		{Fault: "400", Status: 400, Code: "invalid_value", Upstream: false, Msg: "input token count"},
		{Fault: "401", Status: 502, Code: "upstream_error", Upstream: true, Msg: "credentials"},
		{Fault: "403", Status: 502, Code: "upstream_error", Upstream: true, Msg: "credentials"},
		{Fault: "404", Status: 502, Code: "upstream_error", Upstream: true, Msg: "does not serve the model"},
		{Fault: "location", Status: 502, Code: "upstream_error", Upstream: true, Msg: "location"},
		{Fault: "blocked", Status: 400, Code: "content_filter", Upstream: false, Msg: "PROHIBITED_CONTENT"},
	}, adaptertest.ChatAndStream, func(t *testing.T, fault string, stream bool) error {
		p := u.provider(t, nil)
		req := request(t, "fault-"+fault, stream, adaptertest.HelloBody)
		if !stream {
			_, err := p.Chat(context.Background(), req)
			return err
		}
		st, err := p.ChatStream(context.Background(), req)
		if err != nil {
			return err
		}
		// A blocked prompt is a 200 stream whose first chunk says so.
		defer st.Close()
		events, err := adaptertest.ReadAll(st)
		if len(events) != 0 {
			t.Errorf("%d events before the error", len(events))
		}
		return err
	}, func(t *testing.T, _ adaptertest.Fault, e *shlyuz.Error) {
		adaptertest.NotLeaked(t, e, testKey)
	})
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
		adaptertest.NotLeaked(t, e, "AIza", "6789", "not valid")
		if strings.Contains(u.lastURL(), "key") {
			t.Errorf("the key went in the URL: %s", u.lastURL())
		}
	}
}

func TestMalformedReply(t *testing.T) {
	u := startFake(t, fake.Options{})
	p := u.provider(t, nil)
	adaptertest.Faults(t, adaptertest.BrokenReplies, adaptertest.ChatOnly, func(t *testing.T, fault string, stream bool) error {
		return adaptertest.CallError(t, p, request(t, "fault-"+fault, stream, adaptertest.HelloBody))
	}, nil)
}

// TestStreamFaults checks failures after the stream started: Next returns them.
func TestStreamFaults(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8})
	adaptertest.StreamFaults(t, []adaptertest.StreamFault{
		{Fault: "cut", Msg: "broke off"},
		{Fault: "midstream-error", Msg: "internal error"},
		{Fault: "malformed", Msg: "malformed"},
	}, 4, func(t *testing.T, fault string) (shlyuz.ChatStream, error) { // the fake fails half way through 8 words
		return u.provider(t, nil).ChatStream(context.Background(), request(t, "fault-"+fault, true, adaptertest.HelloBody))
	}, func(t *testing.T, events []shlyuz.StreamEvent) {
		for _, ev := range events {
			if ev.FinishReason != "" {
				t.Errorf("a finish before the failure")
			}
		}
		if len(events) != 4 {
			t.Errorf("%d events before the failure, want 4", len(events))
		}
	})
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
	adaptertest.NoUsage(t, adaptertest.ReadToEnd(t, st), 16)
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
		{`{"messages":[{"role":"user","content":"hi"}],"n":9}`, "n"},
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
