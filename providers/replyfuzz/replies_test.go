package replyfuzz

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/anthropic"
	"github.com/shlyuz/shlyuz/providers/gemini"
	"github.com/shlyuz/shlyuz/providers/gigachat"
	"github.com/shlyuz/shlyuz/providers/openai"
	"github.com/shlyuz/shlyuz/providers/yandex"
)

// reply is what the fake upstream answers next: a status and a body.
type reply struct {
	status int
	body   []byte
}

// FuzzReplies: whatever an upstream answers, with whatever status, plain or
// as an event stream, every adapter returns a reply or an *shlyuz.Error,
// never panics, and never reports negative usage.
func FuzzReplies(f *testing.F) {
	var next atomic.Pointer[reply]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "oauth") { // GigaChat's token
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"access_token":"tok","expires_at":` + itoa(time.Now().Add(time.Hour).UnixMilli()) + `}`))
			return
		}
		rp := next.Load()
		if strings.Contains(r.Header.Get("Accept"), "event-stream") || strings.Contains(r.URL.RawQuery, "sse") {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(rp.status)
		_, _ = w.Write(rp.body)
	}))
	f.Cleanup(srv.Close)
	cfg := func(name string) shlyuz.UpstreamConfig {
		return shlyuz.UpstreamConfig{Name: name, BaseURL: srv.URL, APIKey: "k", FolderID: "f", AuthURL: srv.URL + "/oauth",
			Timeout: 2 * time.Second, FirstByteTimeout: 2 * time.Second, IdleTimeout: 2 * time.Second}.WithDefaults()
	}
	providers := map[string]shlyuz.Provider{"openai": openai.New(func() shlyuz.UpstreamConfig { c := cfg("openai"); c.BaseURL += "/v1"; return c }())}
	for name, mk := range map[string]func(shlyuz.UpstreamConfig) (shlyuz.Provider, error){
		"anthropic": func(c shlyuz.UpstreamConfig) (shlyuz.Provider, error) { return anthropic.New(c) },
		"gemini":    func(c shlyuz.UpstreamConfig) (shlyuz.Provider, error) { return gemini.New(c) },
		"gigachat":  func(c shlyuz.UpstreamConfig) (shlyuz.Provider, error) { return gigachat.New(c) },
		"yandex":    func(c shlyuz.UpstreamConfig) (shlyuz.Provider, error) { return yandex.New(c) },
	} {
		p, err := mk(cfg(name))
		if err != nil {
			f.Fatal(err)
		}
		providers[name] = p
	}
	for _, seed := range []string{
		`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`,
		`{"content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}`,
		`{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1}}`,
		`{"result":{"alternatives":[{"message":{"role":"assistant","text":"hi"},"status":"ALTERNATIVE_STATUS_FINAL"}],"usage":{"inputTextTokens":"1"}}}`,
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n",
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n",
		`{"error":{"message":"bad","type":"invalid_request_error"}}`, `{"status":400,"message":"x"}`, `{}`, `[]`, `nul`, "",
	} {
		for _, status := range []int{200, 400, 429, 500} {
			f.Add(status, []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 200 || status > 599 {
			status = 200 + (status%400+400)%400
		}
		next.Store(&reply{status: status, body: body})
		for name, p := range providers {
			req := &shlyuz.UpstreamRequest{GenerationID: "gen-fuzz", Model: "m/x", UpstreamModel: "x", MaxTokens: 16,
				Fields: map[string]json.RawMessage{"model": json.RawMessage(`"x"`), "messages": json.RawMessage(`[{"role":"user","content":"hi"}]`)}}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			resp, err := p.Chat(ctx, req)
			check(t, name, "reply", err)
			if err == nil && (resp.Usage.PromptTokens < 0 || resp.Usage.CompletionTokens < 0) {
				t.Fatalf("%s: usage %+v from %q", name, resp.Usage, body)
			}
			sreq := *req
			sreq.Stream = true
			st, err := p.ChatStream(ctx, &sreq)
			check(t, name, "stream open", err)
			if err == nil {
				for range 1000 {
					ev, err := st.Next()
					if err != nil {
						check(t, name, "stream", ignoreEOF(err))
						break
					}
					if ev.Usage != nil && (ev.Usage.PromptTokens < 0 || ev.Usage.CompletionTokens < 0) {
						t.Fatalf("%s: stream usage %+v from %q", name, *ev.Usage, body)
					}
				}
				_ = st.Close()
			}
			cancel()
		}
	})
}

func check(t *testing.T, adapter, what string, err error) {
	t.Helper()
	var e *shlyuz.Error
	if err != nil && !errors.As(err, &e) {
		t.Fatalf("%s %s: %T %v is no *shlyuz.Error", adapter, what, err, err)
	}
}

func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
