package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

type chatReply struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
		Credits          int64 `json:"credits"`
	} `json:"usage"`
}

func chatBody(model string, stream bool, maxTokens int) map[string]any {
	b := map[string]any{
		"model":    model,
		"messages": []map[string]any{{"role": "user", "content": "Hello there, how are you today?"}},
		"usage":    map[string]any{"include": true},
	}
	if stream {
		b["stream"] = true
	}
	if maxTokens > 0 {
		b["max_tokens"] = maxTokens
	}
	return b
}

func jsonDecode(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }

// postChat sends a chat request and returns the response (the caller closes it).
func postChat(t testing.TB, base, key string, body any) *http.Response {
	t.Helper()
	resp, err := sendChat(base, key, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sendChat sends a chat request and returns the response (the caller closes
// it) or the error, for goroutines other than the test's.
func sendChat(base, key string, body any) (*http.Response, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest("POST", base+"/api/v1/chat/completions", bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	return http.DefaultClient.Do(req)
}

// sseEvents reads a stream to its end: the data payloads, in order.
func sseEvents(t testing.TB, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, line)
		}
	}
	return out
}

type generationView struct {
	Data struct {
		ID               string `json:"id"`
		Model            string `json:"model"`
		Upstream         string `json:"upstream"`
		Streamed         bool   `json:"streamed"`
		TokensPrompt     int64  `json:"tokens_prompt"`
		TokensCompletion int64  `json:"tokens_completion"`
		Credits          int64  `json:"credits"`
		Status           string `json:"status"`
		FinishReason     string `json:"finish_reason"`
		Attempts         []struct {
			Upstream string `json:"upstream"`
			Status   int    `json:"status"`
		} `json:"attempts"`
	} `json:"data"`
}

func TestChatPlainChargesExactly(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	resp := postChat(t, h.base, key, chatBody("test/model", false, 0))
	defer resp.Body.Close()
	var r chatReply
	if err := jsonDecode(resp.Body, &r); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if r.ID == "" || resp.Header.Get("X-Generation-Id") != r.ID || r.Object != "chat.completion" || r.Model != "test/model" {
		t.Fatalf("reply %+v, header %q", r, resp.Header.Get("X-Generation-Id"))
	}
	if len(r.Choices) != 1 || r.Choices[0].Message.Content == "" || r.Usage.CompletionTokens != 8 || r.Usage.PromptTokens < 1 {
		t.Fatalf("reply %+v", r)
	}
	want := promptCredits*r.Usage.PromptTokens + completionCredits*r.Usage.CompletionTokens
	if r.Usage.Credits != want {
		t.Fatalf("usage.credits %d, want %d", r.Usage.Credits, want)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; before-after != want {
		t.Fatalf("debited %d, reported %d", before-after, want)
	}
	var g generationView
	if st := call(t, h.base, "GET", "/api/v1/generation?id="+r.ID, key, nil, &g); st != 200 {
		t.Fatalf("generation %d", st)
	}
	if g.Data.Credits != want || g.Data.Status != "completed" || g.Data.Upstream != "fake" || g.Data.Streamed ||
		g.Data.TokensCompletion != 8 || g.Data.Model != "test/model" || len(g.Data.Attempts) != 1 {
		t.Fatalf("generation %+v", g.Data)
	}
	// Another account's key cannot read it.
	_, other := account(t, h.base, 0, nil)
	if st := call(t, h.base, "GET", "/api/v1/generation?id="+r.ID, other, nil, nil); st != 404 {
		t.Fatalf("other account read the generation: %d", st)
	}
}

func TestChatStreamChargesExactly(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	resp := postChat(t, h.base, key, chatBody("test/model", true, 0))
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := sseEvents(t, resp.Body)
	if len(events) < 3 || events[len(events)-1] != "[DONE]" {
		t.Fatalf("events %q", events)
	}
	var text strings.Builder
	for _, e := range events[:len(events)-2] {
		var c struct {
			ID      string `json:"id"`
			Model   string `json:"model"`
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("chunk %q: %v", e, err)
		}
		if c.ID != resp.Header.Get("X-Generation-Id") || c.Model != "test/model" {
			t.Fatalf("chunk id/model %q %q", c.ID, c.Model)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
		}
	}
	if !strings.Contains(text.String(), "tok0") {
		t.Fatalf("text %q", text.String())
	}
	var last struct {
		Choices []any `json:"choices"`
		Usage   struct {
			PromptTokens     int64 `json:"prompt_tokens"`
			CompletionTokens int64 `json:"completion_tokens"`
			Credits          int64 `json:"credits"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(events[len(events)-2]), &last); err != nil {
		t.Fatal(err)
	}
	want := promptCredits*last.Usage.PromptTokens + completionCredits*last.Usage.CompletionTokens
	if len(last.Choices) != 0 || last.Usage.CompletionTokens != 8 || last.Usage.Credits != want {
		t.Fatalf("usage chunk %s, want credits %d", events[len(events)-2], want)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; before-after != want {
		t.Fatalf("debited %d, reported %d", before-after, want)
	}
}

func TestChatBadInput(t *testing.T) {
	_, key := account(t, h.base, 1_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	for _, tc := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"malformed", `{"model":`, 400, "invalid_json"},
		{"not an object", `[1,2]`, 400, "invalid_json"},
		{"no model", `{"messages":[{"role":"user","content":"x"}]}`, 400, "missing_field"},
		{"no messages", `{"model":"test/model"}`, 400, "missing_field"},
		{"empty messages", `{"model":"test/model","messages":[]}`, 400, "invalid_value"},
		{"messages not array", `{"model":"test/model","messages":"hi"}`, 400, "invalid_value"},
		{"bad max_tokens", `{"model":"test/model","messages":[{"role":"user","content":"x"}],"max_tokens":0}`, 400, "invalid_value"},
		{"max_tokens string", `{"model":"test/model","messages":[{"role":"user","content":"x"}],"max_tokens":"9"}`, 400, "invalid_value"},
		{"unknown model", `{"model":"nope/nope","messages":[{"role":"user","content":"x"}]}`, 404, "model_not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", h.base+"/api/v1/chat/completions", strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			assertError(t, req, tc.status, map[int]string{400: "invalid_request_error", 404: "not_found_error", 413: "invalid_request_error"}[tc.status], tc.code)
		})
	}
	t.Run("too large", func(t *testing.T) {
		// The server refuses a body by its announced length, before reading it:
		// send the headers alone, so that no upload races the answer.
		c, err := net.Dial("tcp", strings.TrimPrefix(h.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /api/v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", key, 2<<20)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e apiError
		if err := jsonDecode(resp.Body, &e); err != nil || resp.StatusCode != 413 || e.Error.Code != "request_too_large" {
			t.Fatalf("%d %+v %v", resp.StatusCode, e.Error, err)
		}
	})
	if after := balance(t, h.base, key).Data.TotalCredits; after != before {
		t.Fatalf("bad input cost %d credits", before-after)
	}
}

func TestInsufficientBalanceAndKeyCeiling(t *testing.T) {
	// 100 credits: a short prompt (≥ 10 tokens reserved = 100+ credits) cannot be afforded.
	_, poor := account(t, h.base, 100, nil)
	resp := postChat(t, h.base, poor, chatBody("test/model", false, 0))
	var e apiError
	_ = jsonDecode(resp.Body, &e)
	resp.Body.Close()
	if resp.StatusCode != 402 || e.Error.Code != "insufficient_credits" || !strings.Contains(e.Error.Message, "affords") {
		t.Fatalf("%d %+v", resp.StatusCode, e.Error)
	}
	_, capped := account(t, h.base, 10_000_000, map[string]any{"limit": 100, "limit_reset": "day"})
	resp = postChat(t, h.base, capped, chatBody("test/model", false, 0))
	_ = jsonDecode(resp.Body, &e)
	resp.Body.Close()
	if resp.StatusCode != 403 || e.Error.Code != "key_limit_exceeded" || !strings.Contains(e.Error.Message, "100 credits") {
		t.Fatalf("%d %+v", resp.StatusCode, e.Error)
	}
	// max_tokens beyond what the balance affords is refused, a smaller one passes.
	_, some := account(t, h.base, 5000, nil)
	resp = postChat(t, h.base, some, chatBody("test/model", false, 1000))
	resp.Body.Close()
	if resp.StatusCode != 402 {
		t.Fatalf("max_tokens 1000 on 5000 credits: %d", resp.StatusCode)
	}
	resp = postChat(t, h.base, some, chatBody("test/model", false, 8))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("max_tokens 8 on 5000 credits: %d", resp.StatusCode)
	}
}

// concurrentSpend fires n requests at once and checks that nothing was
// overspent and that the debits equal the sum of the reported usage.credits.
func concurrentSpend(t *testing.T, key string, n int, stream bool) (reported int64, ok int) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	statuses := map[int]int{}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := postChat(t, h.base, key, chatBody("test/model", stream, 0))
			defer resp.Body.Close()
			var credits int64
			if resp.StatusCode == 200 {
				if stream {
					ev := sseEvents(t, resp.Body)
					var last struct{ Usage struct{ Credits int64 } }
					if len(ev) < 2 || ev[len(ev)-1] != "[DONE]" || json.Unmarshal([]byte(ev[len(ev)-2]), &last) != nil {
						t.Errorf("stream ended badly: %q", ev)
						return
					}
					credits = last.Usage.Credits
				} else {
					var r chatReply
					if err := jsonDecode(resp.Body, &r); err != nil {
						t.Error(err)
						return
					}
					credits = r.Usage.Credits
				}
			}
			mu.Lock()
			statuses[resp.StatusCode]++
			reported += credits
			mu.Unlock()
		}()
	}
	wg.Wait()
	for st := range statuses {
		if st != 200 && st != 402 && st != 403 {
			t.Fatalf("unexpected statuses %v", statuses)
		}
	}
	return reported, statuses[200]
}

func TestConcurrentRequestsNeverOverspendTheKeyCeiling(t *testing.T) {
	const limit = 30_000
	_, key := account(t, h.base, 100_000_000, map[string]any{"limit": limit, "limit_reset": "month"})
	before := balance(t, h.base, key).Data.TotalCredits
	reported, ok := concurrentSpend(t, key, 300, false)
	var k keyView
	call(t, h.base, "GET", "/api/v1/key", key, nil, &k)
	after := balance(t, h.base, key).Data.TotalCredits
	if ok == 0 || ok == 300 {
		t.Fatalf("%d of 300 succeeded: the ceiling did not bite", ok)
	}
	if k.Data.Usage > limit || k.Data.Usage != reported || before-after != reported {
		t.Fatalf("key usage %d, reported %d, debited %d, limit %d", k.Data.Usage, reported, before-after, limit)
	}
	t.Logf("%d of 300 served, %d credits of a %d ceiling", ok, reported, limit)
}

func TestConcurrentRequestsNeverOverspendTheBalance(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			const credits = 40_000
			_, key := account(t, h.base, credits, nil)
			reported, ok := concurrentSpend(t, key, 300, stream)
			b := balance(t, h.base, key).Data
			if ok == 0 || ok == 300 {
				t.Fatalf("%d of 300 succeeded: the balance did not bite", ok)
			}
			if b.TotalCredits < 0 || credits-b.TotalCredits != reported || b.Reserved != 0 {
				t.Fatalf("left %d (reserved %d), reported %d of %d", b.TotalCredits, b.Reserved, reported, credits)
			}
		})
	}
}

// A call no upstream may serve (here: the client allows only an unknown one)
// answers at once with the reason, which no client retries: nothing is
// reserved, so even an empty balance gets the real reason, and nothing is charged.
func TestUnservableCallIsUnavailableNotCharged(t *testing.T) {
	_, key := account(t, h.base, 0, nil)
	body := withFields(chatBody("test/model", false, 0), "provider", map[string]any{"order": []string{"nosuch"}, "allow_fallbacks": false})
	var e apiError
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, body, &e); st != 400 || e.Error.Code != "invalid_value" ||
		e.Error.Param == nil || *e.Error.Param != "provider.order" || !strings.Contains(e.Error.Message, "nosuch") {
		t.Fatalf("%d %+v", st, e.Error)
	}
}

// A client that sets no max_tokens is told the ceiling the gateway chose
// (what the balance affords here), and a refusal never tells it to lower a
// max_tokens it did not send.
func TestDecidedMaxTokensIsTold(t *testing.T) {
	_, key := account(t, h.base, 20_000, nil) // 2,000 completion tokens at most, less the prompt
	for _, stream := range []bool{false, true} {
		resp := postChat(t, h.base, key, chatBody("test/model", stream, 0))
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		n, err := strconv.Atoi(resp.Header.Get("X-Shlyuz-Max-Tokens"))
		if resp.StatusCode != 200 || err != nil || n < 1 || n >= 2000 {
			t.Fatalf("stream=%v: %d, X-Shlyuz-Max-Tokens %q, want the balance's ceiling", stream, resp.StatusCode, resp.Header.Get("X-Shlyuz-Max-Tokens"))
		}
	}
	resp := postChat(t, h.base, key, chatBody("test/model", false, 10))
	resp.Body.Close()
	if v := resp.Header.Get("X-Shlyuz-Max-Tokens"); v != "" {
		t.Fatalf("the client set max_tokens, yet the gateway says it chose %s", v)
	}
	_, poor := account(t, h.base, 5, nil)
	var e apiError
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", poor, chatBody("test/model", false, 0), &e); st != 402 || strings.Contains(e.Error.Message, "max_tokens") {
		t.Fatalf("%d %q: a refusal must not mention a max_tokens the client never sent", st, e.Error.Message)
	}
}
