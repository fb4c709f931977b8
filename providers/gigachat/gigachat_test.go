package gigachat

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// collected is a stream read to its end.
type collected struct {
	adaptertest.Streamed
	err error // nil at io.EOF
}

// collect reads st to its end; each chunk must carry our id, object and
// model, and no usage: the gateway writes it.
func collect(t *testing.T, st shlyuz.ChatStream) collected {
	t.Helper()
	events, err := adaptertest.ReadAll(st)
	if err == io.EOF {
		err = nil
	}
	s := adaptertest.Collect(t, events, func(i int, _ shlyuz.StreamEvent, c *adaptertest.Chunk) {
		if c != nil {
			adaptertest.CheckChunk(t, i, c, "public/", false)
		}
	})
	return collected{s, err}
}

func TestNewNeedsKeyAndReadableCA(t *testing.T) {
	if _, err := New(shlyuz.UpstreamConfig{Name: "g"}); err == nil {
		t.Error("New without an authorization key succeeded")
	}
	if _, err := New(shlyuz.UpstreamConfig{Name: "g", APIKey: "k", CAFile: t.TempDir() + "/missing.pem"}); err == nil {
		t.Error("New with a missing ca_file succeeded")
	}
	p, err := New(shlyuz.UpstreamConfig{Name: "g", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if p.chatURL != DefaultBaseURL+"/chat/completions" || p.auth.URL != DefaultAuthURL || p.auth.Scope != DefaultScope || p.auth.Margin != DefaultRefreshMargin {
		t.Errorf("defaults: chat %s auth %s scope %s margin %v", p.chatURL, p.auth.URL, p.auth.Scope, p.auth.Margin)
	}
}

func TestChat(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 5}, nil)
	p := u.provider(t, Options{}, func(c *shlyuz.UpstreamConfig) {
		c.Headers = map[string]string{"X-Client-ID": "client-1"}
	})
	req := adaptertest.Request(t, "GigaChat-2-Max", false,
		`{"model":"public/GigaChat-2-Max","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello there, how are you?"}],"temperature":0.2,"top_p":0.9,"repetition_penalty":1.1,"stop":["x"],"user":"u1","stream":false}`)
	req.MaxTokens = 100
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	c := adaptertest.OnlyChoice(t, resp)
	if c.Message.Role != "assistant" || c.Message.Content == nil || *c.Message.Content != "tok0 tok1 tok2 tok3 tok4" {
		t.Errorf("message = %+v", c.Message)
	}
	if c.FinishReason != "stop" || resp.FinishReason != "stop" {
		t.Errorf("finish = %q / %q", c.FinishReason, resp.FinishReason)
	}
	// "Be brief." + "Hello there, how are you?" = 9 + 25 characters → 8 tokens.
	want := shlyuz.Usage{PromptTokens: 8, CompletionTokens: 5, TotalTokens: 13}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.Created == 0 {
		t.Error("created not set")
	}
	sent := u.SentBody(t)
	adaptertest.CheckSent(t, sent, map[string]string{"model": `"GigaChat-2-Max"`, "temperature": "0.2", "top_p": "0.9",
		"repetition_penalty": "1.1", "max_tokens": "100", "stream": "false"},
		"stop", "user", "tools", "functions") // GigaChat does not take them
	h := u.Fake.LastHeader()
	if got := h.Get("Authorization"); !strings.HasPrefix(got, "Bearer fake-giga-") {
		t.Errorf("Authorization = %q", got)
	}
	if h.Get("X-Client-ID") != "client-1" {
		t.Errorf("configured header not sent: %v", h)
	}
}

func TestChatStream(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 6}, nil)
	p := u.provider(t, Options{}, nil)
	st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "GigaChat", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := collect(t, st)
	if c.err != nil {
		t.Fatal(c.err)
	}
	if c.Content != "tok0 tok1 tok2 tok3 tok4 tok5" || c.Finish != "stop" {
		t.Errorf("content %q finish %q", c.Content, c.Finish)
	}
	if c.Usage == nil || c.Usage.CompletionTokens != 6 || c.Usage.PromptTokens != 6 {
		t.Errorf("usage = %+v", c.Usage)
	}
	if c.Tokens != 6 {
		t.Errorf("estimated completion tokens = %d, want 6", c.Tokens)
	}
	var first struct {
		Choices []struct {
			Delta struct{ Role string } `json:"delta"`
		} `json:"choices"`
	}
	_ = json.Unmarshal(c.Events[0].Data, &first)
	if len(first.Choices) != 1 || first.Choices[0].Delta.Role != "assistant" {
		t.Errorf("first chunk %s has no role", c.Events[0].Data)
	}
	if string(u.SentBody(t)["stream"]) != "true" {
		t.Error("stream not asked for")
	}
}

func TestMaxTokensLength(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8}, nil)
	p := u.provider(t, Options{}, nil)
	// The client's own max_completion_tokens goes up as max_tokens when the gateway set none.
	resp, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false,
		`{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "length" || resp.Usage.CompletionTokens != 3 {
		t.Errorf("finish %q usage %+v", resp.FinishReason, resp.Usage)
	}
	if got := string(u.SentBody(t)["max_tokens"]); got != "3" {
		t.Errorf("max_tokens = %s", got)
	}
}

const weatherTools = `"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`

func TestToolsRoundTrip(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "chat", true: "stream"}[stream], func(t *testing.T) {
			u := startFake(t, fake.Options{ReplyTokens: 4}, nil)
			p := u.provider(t, Options{}, nil)
			body := `{"messages":[{"role":"user","content":"Weather in Moscow?"}],` + weatherTools + `}`
			var id, name, args, finish string
			if !stream {
				resp, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, body))
				if err != nil {
					t.Fatal(err)
				}
				c := adaptertest.OnlyChoice(t, resp)
				if len(c.Message.ToolCalls) != 1 || c.Message.Content != nil {
					t.Fatalf("message = %s", resp.Choices)
				}
				tc := c.Message.ToolCalls[0]
				id, name, args, finish = tc.ID, tc.Function.Name, tc.Function.Arguments, resp.FinishReason
				if tc.Type != "function" {
					t.Errorf("type = %q", tc.Type)
				}
			} else {
				st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "GigaChat", true, body))
				if err != nil {
					t.Fatal(err)
				}
				c := collect(t, st)
				st.Close()
				if c.err != nil {
					t.Fatal(c.err)
				}
				finish = c.Finish
				for _, ev := range c.Events {
					var ch struct {
						Choices []struct {
							Delta struct {
								ToolCalls []struct {
									Index    *int   `json:"index"`
									ID       string `json:"id"`
									Function struct{ Name, Arguments string }
								} `json:"tool_calls"`
							} `json:"delta"`
						} `json:"choices"`
					}
					_ = json.Unmarshal(ev.Data, &ch)
					for _, c0 := range ch.Choices {
						for _, tc := range c0.Delta.ToolCalls {
							if tc.Index == nil || *tc.Index != 0 {
								t.Errorf("tool call delta without index 0: %s", ev.Data)
							}
							id, name, args = tc.ID, tc.Function.Name, tc.Function.Arguments
						}
					}
				}
			}
			if name != "get_weather" || args != fake.ToolArguments || finish != "tool_calls" {
				t.Fatalf("tool call %q(%s), finish %q", name, args, finish)
			}
			if !strings.HasPrefix(id, "call_") {
				t.Errorf("id = %q", id)
			}
			sent := u.SentBody(t)
			if string(sent["function_call"]) != `"auto"` {
				t.Errorf("function_call = %s", sent["function_call"])
			}
			var fns []map[string]json.RawMessage
			_ = json.Unmarshal(sent["functions"], &fns)
			if len(fns) != 1 || string(fns[0]["name"]) != `"get_weather"` || len(fns[0]["parameters"]) == 0 {
				t.Errorf("functions = %s", sent["functions"])
			}

			// The follow-up: the assistant's call and the tool's result.
			follow := adaptertest.FollowUp("Weather in Moscow?", id, args, `{"temp":-5}`, weatherTools)
			resp, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, follow))
			if err != nil {
				t.Fatal(err)
			}
			c := adaptertest.OnlyChoice(t, resp)
			if c.Message.Content == nil || *c.Message.Content != "tok0 tok1 tok2 tok3" || resp.FinishReason != "stop" {
				t.Errorf("follow-up reply %s", resp.Choices)
			}
			var msgs []struct {
				Role             string `json:"role"`
				Content          string `json:"content"`
				Name             string `json:"name"`
				FunctionsStateID string `json:"functions_state_id"`
				FunctionCall     *struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function_call"`
			}
			_ = json.Unmarshal(u.SentBody(t)["messages"], &msgs)
			if len(msgs) != 3 || msgs[1].FunctionCall == nil || msgs[1].FunctionCall.Name != "get_weather" ||
				string(msgs[1].FunctionCall.Arguments) != `{"city":"Moscow"}` || msgs[2].Role != "function" ||
				msgs[2].Name != "get_weather" || msgs[2].Content != `{"temp":-5}` {
				t.Errorf("follow-up sent %s", u.SentBody(t)["messages"])
			}
			// The fake returned a functions_state_id; the invented id carried it back.
			if msgs[1].FunctionsStateID == "" || id != stateCallPrefix+msgs[1].FunctionsStateID {
				t.Errorf("functions_state_id %q not carried by the call id %q", msgs[1].FunctionsStateID, id)
			}
		})
	}
}

// A 1×1 PNG.
var pngPixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

func TestVisionUploadsAndAttaches(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 2}, nil)
	p := u.provider(t, Options{}, nil)
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngPixel)
	body := `{"messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"` + dataURL + `"}}]},` +
		`{"role":"assistant","content":"A pixel."},` +
		`{"role":"user","content":[{"type":"text","text":"And this?"},{"type":"image_url","image_url":{"url":"` + dataURL + `","detail":"low"}}]}]}`
	resp, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat-2-Max", false, body))
	if err != nil {
		t.Fatal(err)
	}
	// The same image twice is uploaded once; the fake counts 85 tokens per attached image.
	if n := u.Fake.GigaChatFilesUploaded(); n != 1 {
		t.Errorf("uploads = %d, want 1", n)
	}
	if resp.Usage.PromptTokens < 170 {
		t.Errorf("prompt tokens %d: the images did not reach the model", resp.Usage.PromptTokens)
	}
	var msgs []struct {
		Content     string   `json:"content"`
		Attachments []string `json:"attachments"`
	}
	_ = json.Unmarshal(u.SentBody(t)["messages"], &msgs)
	if len(msgs) != 3 || msgs[0].Content != "What is this?" || len(msgs[0].Attachments) != 1 ||
		len(msgs[2].Attachments) != 1 || msgs[0].Attachments[0] != msgs[2].Attachments[0] {
		t.Errorf("sent messages %s", u.SentBody(t)["messages"])
	}
}

func TestImagesRefusedBeforeUpload(t *testing.T) {
	u := startFake(t, fake.Options{}, nil)
	p := u.provider(t, Options{}, nil)
	png := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngPixel)
	cases := map[string]string{
		"link":          `[{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}]`,
		"webp":          `[{"type":"image_url","image_url":{"url":"data:image/webp;base64,UklGRg=="}}]`,
		"bad base64":    `[{"type":"image_url","image_url":{"url":"data:image/png;base64,***"}}]`,
		"two in one":    `[{"type":"image_url","image_url":{"url":"` + png + `"}},{"type":"image_url","image_url":{"url":"` + png + `#2"}}]`,
		"audio":         `[{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}]`,
		"missing url":   `[{"type":"image_url","image_url":{}}]`,
		"not a content": `{"type":"text"}`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, `{"messages":[{"role":"user","content":`+content+`}]}`))
			adaptertest.AsError(t, err, 400, "invalid_value", false)
		})
	}
	if n := u.Fake.GigaChatFilesUploaded(); n != 0 {
		t.Errorf("uploads = %d, want none", n)
	}
	if n := u.Fake.Requests(); n != 0 {
		t.Errorf("the fake got %d requests for refused bodies", n)
	}
}

func TestUploadRefusedIsClientError(t *testing.T) {
	// An upstream that refuses the file: a client error, the image named.
	u := startFake(t, fake.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/files") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"status":400,"message":"Image is too big"}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	p := u.provider(t, Options{}, nil)
	png := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngPixel)
	_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false,
		`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"`+png+`"}}]}]}`))
	e := adaptertest.AsError(t, err, 400, "invalid_value", false)
	if !strings.Contains(e.Message, "image") || !strings.Contains(e.Message, "Image is too big") {
		t.Errorf("message %q", e.Message)
	}
}

func TestErrorsBeforeFirstByte(t *testing.T) {
	u := startFake(t, fake.Options{}, nil)
	p := u.provider(t, Options{}, nil)
	adaptertest.Faults(t, []adaptertest.Fault{
		{Fault: "500", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "503", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "429", Status: 429, Code: "rate_limited", Upstream: true, RetryAfter: 2 * time.Second},
		{Fault: "quota", Status: 502, Code: "upstream_error", Upstream: true, Msg: "402"},
		{Fault: "402", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "403", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "404", Status: 502, Code: "upstream_error", Upstream: true},
		{Fault: "400", Status: 400, Code: "invalid_value", Upstream: false},
		{Fault: "413", Status: 400, Code: "invalid_value", Upstream: false},
		{Fault: "422", Status: 400, Code: "invalid_value", Upstream: false},
		{Fault: "408", Status: 504, Code: "upstream_timeout", Upstream: true},
	}, adaptertest.ChatAndStream, func(t *testing.T, fault string, stream bool) error {
		return adaptertest.CallError(t, p, adaptertest.Request(t, "fault-"+fault, stream, adaptertest.HelloBody))
	}, nil)
}

func TestUnauthorizedTwiceIsCredentialsRefused(t *testing.T) {
	u := startFake(t, fake.Options{}, nil)
	p := u.provider(t, Options{}, nil)
	// The fake answers 401 to every call for fault-401: one refresh, one retry, then give up.
	_, err := p.Chat(context.Background(), adaptertest.Request(t, "fault-401", false, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "credentials") {
		t.Errorf("message %q", e.Message)
	}
	if n := u.Fake.GigaChatTokensIssued(); n != 2 {
		t.Errorf("tokens issued = %d, want 2 (the first and one refresh)", n)
	}
	if n := u.Fake.Requests(); n != 4 {
		t.Errorf("requests = %d, want 4 (oauth, chat, oauth, chat)", n)
	}
}

func TestOAuthRefusedSaysCredentials(t *testing.T) {
	u := startFake(t, fake.Options{}, nil)
	p := u.provider(t, Options{}, func(c *shlyuz.UpstreamConfig) { c.APIKey = "d3Jvbmc6a2V5" })
	for _, stream := range adaptertest.ChatAndStream {
		e := adaptertest.AsError(t, adaptertest.CallError(t, p, adaptertest.Request(t, "GigaChat", stream, adaptertest.HelloBody)), 502, "upstream_error", true)
		if !strings.Contains(e.Message, "GigaChat credentials") || strings.Contains(e.Message, "d3Jvbmc6a2V5") {
			t.Errorf("message %q", e.Message)
		}
		if strings.Contains(e.Message, "db data") {
			t.Errorf("the OAuth message leaked to the client: %q", e.Message)
		}
	}
	// A bad scope, the same way.
	p = u.provider(t, Options{}, func(c *shlyuz.UpstreamConfig) { c.Scope = "GIGACHAT_API_NOPE" })
	_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
	if e := adaptertest.AsError(t, err, 502, "upstream_error", true); !strings.Contains(e.Message, "code 7") {
		t.Errorf("message %q", e.Message)
	}
	if n := u.Fake.GigaChatTokensIssued(); n != 0 {
		t.Errorf("tokens issued = %d", n)
	}
}

func TestOAuthFailures(t *testing.T) {
	for _, c := range []struct {
		status int
		code   string
		want   int
	}{
		{500, "upstream_error", 502},
		{429, "rate_limited", 429},
	} {
		u := startFake(t, fake.Options{}, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == fakeOAuth {
					w.Header().Set("Retry-After", "3")
					w.WriteHeader(c.status)
					return
				}
				h.ServeHTTP(w, r)
			})
		})
		p := u.provider(t, Options{}, nil)
		_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
		e := adaptertest.AsError(t, err, c.want, c.code, true)
		if c.status == 429 && e.RetryAfter != 3*time.Second {
			t.Errorf("RetryAfter = %v", e.RetryAfter)
		}
	}
	// Unreachable.
	u := startFake(t, fake.Options{}, nil)
	p := u.provider(t, Options{}, func(c *shlyuz.UpstreamConfig) { c.AuthURL = "http://127.0.0.1:1/oauth" })
	_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 502, "upstream_error", true)
}

func TestErrorsAfterFirstByte(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8}, nil)
	p := u.provider(t, Options{}, nil)
	adaptertest.StreamFaults(t, []adaptertest.StreamFault{
		{Fault: "midstream-error"}, {Fault: "cut", Msg: "broke off"}, {Fault: "malformed", Msg: "malformed"},
	}, 4, func(t *testing.T, fault string) (shlyuz.ChatStream, error) { // the fake fails half way through 8 words
		return p.ChatStream(context.Background(), adaptertest.Request(t, "fault-"+fault, true, adaptertest.HelloBody))
	}, func(t *testing.T, events []shlyuz.StreamEvent) {
		if len(events) == 0 {
			t.Errorf("no events before the failure")
		}
	})
	t.Run("chat", func(t *testing.T) {
		adaptertest.Faults(t, adaptertest.BrokenReplies, adaptertest.ChatOnly, func(t *testing.T, fault string, stream bool) error {
			return adaptertest.CallError(t, p, adaptertest.Request(t, "fault-"+fault, stream, adaptertest.HelloBody))
		}, nil)
	})
}

func TestNoUsage(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 3}, nil)
	p := u.provider(t, Options{}, nil)
	st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "fault-nousage", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	c := collect(t, st)
	st.Close()
	if c.err != nil || c.Usage != nil || c.Finish != "stop" || c.Tokens != 3 {
		t.Errorf("err %v usage %+v finish %q tokens %d", c.err, c.Usage, c.Finish, c.Tokens)
	}
	resp, err := p.Chat(context.Background(), adaptertest.Request(t, "fault-nousage", false, adaptertest.HelloBody))
	if err != nil || resp.Usage != (shlyuz.Usage{}) {
		t.Errorf("chat: %v, usage %+v", err, resp)
	}
}

func TestStallCancelAndClose(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8}, nil)
	p := u.provider(t, Options{}, nil)

	// Cancelling the context unblocks Next.
	ctx, cancel := context.WithCancel(context.Background())
	st, err := p.ChatStream(ctx, adaptertest.Request(t, "fault-stall", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ { // the fake sends half the words, then stalls
		if _, err := st.Next(); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	done := make(chan error, 1)
	go func() { _, err := st.Next(); done <- err }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Next after cancel = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next did not return after cancel")
	}
	st.Close()

	// Close unblocks Next.
	st, err = p.ChatStream(context.Background(), adaptertest.Request(t, "fault-stall", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if _, err := st.Next(); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	go func() { _, err := st.Next(); done <- err }()
	st.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrStreamClosed) {
			t.Errorf("Next after Close = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next did not return after Close")
	}
}

func TestIdleTimeout(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 8}, nil)
	p := u.provider(t, Options{}, func(c *shlyuz.UpstreamConfig) { c.IdleTimeout = 50 * time.Millisecond })
	st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "fault-stall", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := collect(t, st)
	adaptertest.AsError(t, c.err, 504, "upstream_timeout", true)
}

func TestFirstByteTimeout(t *testing.T) {
	u := startFake(t, fake.Options{}, nil)
	p := u.provider(t, Options{}, func(c *shlyuz.UpstreamConfig) { c.FirstByteTimeout = 50 * time.Millisecond })
	// Take the token first: the timeout below is the chat call's.
	if _, err := p.auth.Token(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := p.ChatStream(context.Background(), adaptertest.Request(t, "fault-hang", true, adaptertest.HelloBody))
	adaptertest.AsError(t, err, 504, "upstream_timeout", true)
}

func TestBadRequestsRefusedLocally(t *testing.T) {
	u := startFake(t, fake.Options{}, nil)
	p := u.provider(t, Options{}, nil)
	cases := map[string]string{
		"no messages":         `{}`,
		"empty messages":      `{"messages":[]}`,
		"unknown role":        `{"messages":[{"role":"critic","content":"x"}]}`,
		"non-function tool":   `{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_search"}]}`,
		"unknown tool choice": `{"messages":[{"role":"user","content":"x"}],` + weatherTools + `,"tool_choice":{"type":"function","function":{"name":"nope"}}}`,
		"required of two":     `{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"b"}}],"tool_choice":"required"}`,
		"orphan tool result":  `{"messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"call_1","content":"1"}]}`,
		"bad arguments":       `{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"a","arguments":"[1]"}}]}]}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, body))
			var e *shlyuz.Error
			if !errors.As(err, &e) || e.Status != 400 || e.UpstreamFault {
				t.Fatalf("err = %v", err)
			}
		})
	}
	if n := u.Fake.Requests(); n != 0 {
		t.Errorf("the fake got %d requests", n)
	}
}

func TestStreamAnsweredWithJSON(t *testing.T) {
	u := startFake(t, fake.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/chat/completions") {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"status":500,"message":"stream broke"}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	p := u.provider(t, Options{}, nil)
	_, err := p.ChatStream(context.Background(), adaptertest.Request(t, "GigaChat", true, adaptertest.HelloBody))
	e := adaptertest.AsError(t, err, 502, "upstream_error", true)
	if !strings.Contains(e.Message, "stream broke") {
		t.Errorf("message %q", e.Message)
	}
}

func TestConnectionsReused(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 2}, nil)
	p := u.provider(t, Options{}, nil)
	for i := 0; i < 5; i++ {
		st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "GigaChat", true, adaptertest.HelloBody))
		if err != nil {
			t.Fatal(err)
		}
		if c := collect(t, st); c.err != nil {
			t.Fatal(c.err)
		}
		st.Close()
	}
	if n := u.Fake.GigaChatTokensIssued(); n != 1 {
		t.Errorf("tokens issued = %d, want 1: the token is shared", n)
	}
	if !bytes.Contains(u.Fake.LastRequest(), []byte(`"stream":true`)) {
		t.Error("last request was not streamed")
	}
}
