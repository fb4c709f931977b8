package fake_test

import (
	"bufio"
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

	"github.com/shlyuz/shlyuz/providers/fake"
)

func start(t *testing.T, opts fake.Options) (*fake.Server, string) {
	t.Helper()
	f := fake.New(opts)
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	t.Cleanup(f.Close)
	return f, ts.URL + "/v1"
}

func post(t *testing.T, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads the data payloads of an SSE body.
func events(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	blank := true
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if blank {
				t.Errorf("two blank lines in a row")
			}
			blank = true
			continue
		}
		if !blank {
			t.Errorf("event without a blank line before it: %q", line)
		}
		blank = false
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Errorf("not a data line: %q", line)
		}
		out = append(out, data)
	}
	return out, sc.Err()
}

type chunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Usage             json.RawMessage `json:"usage"`
	Choices           []struct {
		Index        int                        `json:"index"`
		Delta        map[string]json.RawMessage `json:"delta"`
		FinishReason *string                    `json:"finish_reason"`
	} `json:"choices"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func TestStreamWireOrder(t *testing.T) {
	for _, includeUsage := range []bool{true, false} {
		name := "without usage"
		body := `{"model":"gpt-x","messages":[{"role":"user","content":"abcdefgh"}],"stream":true}`
		if includeUsage {
			name = "with usage"
			body = `{"model":"gpt-x","messages":[{"role":"user","content":"abcdefgh"}],"stream":true,"stream_options":{"include_usage":true}}`
		}
		t.Run(name, func(t *testing.T) {
			_, url := start(t, fake.Options{ReplyTokens: 3})
			resp := post(t, url, body, nil)
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			evs, err := events(t, resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			want := 1 + 3 + 1 + 1 // role, tokens, finish, [DONE]
			if includeUsage {
				want++
			}
			if len(evs) != want {
				t.Fatalf("%d events, want %d: %q", len(evs), want, evs)
			}
			if evs[len(evs)-1] != "[DONE]" {
				t.Errorf("last event %q", evs[len(evs)-1])
			}
			var id string
			for i, ev := range evs[:len(evs)-1] {
				var c chunk
				if err := json.Unmarshal([]byte(ev), &c); err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				if i == 0 {
					id = c.ID
				}
				if c.ID != id || c.Object != "chat.completion.chunk" || c.Model != "gpt-x" || c.Created == 0 || c.SystemFingerprint == "" {
					t.Errorf("event %d header: %s", i, ev)
				}
				isUsage := includeUsage && i == len(evs)-2
				if includeUsage && !isUsage && string(c.Usage) != "null" {
					t.Errorf("event %d: usage %s, want null", i, c.Usage)
				}
				if !includeUsage && c.Usage != nil {
					t.Errorf("event %d: usage member present: %s", i, ev)
				}
				switch {
				case i == 0:
					if string(c.Choices[0].Delta["role"]) != `"assistant"` || string(c.Choices[0].Delta["content"]) != `""` || c.Choices[0].FinishReason != nil {
						t.Errorf("first chunk: %s", ev)
					}
				case i <= 3:
					want := `"tok` + string(rune('0'+i-1)) + `"`
					if i > 1 {
						want = `" tok` + string(rune('0'+i-1)) + `"`
					}
					if got := string(c.Choices[0].Delta["content"]); got != want || len(c.Choices[0].Delta) != 1 {
						t.Errorf("chunk %d content %s, want %s", i, got, want)
					}
				case i == 4:
					if len(c.Choices[0].Delta) != 0 || c.Choices[0].FinishReason == nil || *c.Choices[0].FinishReason != "stop" {
						t.Errorf("finish chunk: %s", ev)
					}
				case isUsage:
					var u usage
					if len(c.Choices) != 0 || json.Unmarshal(c.Usage, &u) != nil {
						t.Fatalf("usage chunk: %s", ev)
					}
					if u != (usage{PromptTokens: 2, CompletionTokens: 3, TotalTokens: 5}) {
						t.Errorf("usage %+v", u)
					}
				}
			}
		})
	}
}

func TestReply(t *testing.T) {
	f, url := start(t, fake.Options{})
	body := `{"model":"m","messages":[{"role":"system","content":"0123456789"},{"role":"user","content":[{"type":"text","text":"0123456789"},{"type":"image_url","image_url":{"url":"x"}}]}],"max_completion_tokens":4}`
	resp := post(t, url, body, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var r struct {
		ID, Object, Model, SystemFingerprint string
		Created                              int64
		Choices                              []struct {
			Message      struct{ Role, Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage usage
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Object != "chat.completion" || r.Model != "m" || r.Created == 0 || len(r.Choices) != 1 {
		t.Errorf("reply %+v", r)
	}
	if c := r.Choices[0]; c.Message.Content != "tok0 tok1 tok2 tok3" || c.FinishReason != "length" || c.Message.Role != "assistant" {
		t.Errorf("choice %+v", c)
	}
	if r.Usage != (usage{PromptTokens: 5 + 85, CompletionTokens: 4, TotalTokens: 94}) {
		t.Errorf("usage %+v", r.Usage)
	}
	if string(f.LastRequest()) != body {
		t.Errorf("last request %s", f.LastRequest())
	}
	if f.Requests() != 1 || f.InFlight() != 0 {
		t.Errorf("requests %d, in flight %d", f.Requests(), f.InFlight())
	}
}

func TestRejects(t *testing.T) {
	_, url := start(t, fake.Options{APIKey: "sk-good"})
	for _, tc := range []struct {
		name, body string
		header     map[string]string
		status     int
		errType    string
	}{
		{"no key", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, nil, 401, "invalid_request_error"},
		{"wrong key", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, map[string]string{"Authorization": "Bearer sk-bad"}, 401, "invalid_request_error"},
		{"bad json", `{"model":`, map[string]string{"Authorization": "Bearer sk-good"}, 400, "invalid_request_error"},
		{"stream_options without stream", `{"model":"m","messages":[{"role":"user","content":"x"}],"stream_options":{"include_usage":true}}`, map[string]string{"Authorization": "Bearer sk-good"}, 400, "invalid_request_error"},
		{"500", `{"model":"fake/fault-500","messages":[{"role":"user","content":"x"}]}`, map[string]string{"Authorization": "Bearer sk-good"}, 500, "server_error"},
		{"quota", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, map[string]string{"Authorization": "Bearer sk-good", fake.FaultHeader: "quota"}, 429, "insufficient_quota"},
		{"429", `{"model":"fake/fault-429:latest","messages":[{"role":"user","content":"x"}]}`, map[string]string{"Authorization": "Bearer sk-good"}, 429, "requests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, url, tc.body, tc.header)
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			raw, _ := io.ReadAll(resp.Body)
			if err := json.Unmarshal(raw, &e); err != nil || e.Error.Message == "" {
				t.Fatalf("error body %s: %v", raw, err)
			}
			if resp.StatusCode != tc.status || e.Error.Type != tc.errType {
				t.Errorf("status %d type %q, want %d %q", resp.StatusCode, e.Error.Type, tc.status, tc.errType)
			}
			if tc.status == 429 && tc.errType == "requests" && resp.Header.Get("Retry-After") != "2" {
				t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
			}
		})
	}
}

func TestModels(t *testing.T) {
	_, url := start(t, fake.Options{})
	resp, err := http.Get(url + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Object string
		Data   []struct{ ID, Object string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || list.Object != "list" || len(list.Data) == 0 {
		t.Fatalf("models %+v: %v", list, err)
	}
}

func TestStreamFaults(t *testing.T) {
	_, url := start(t, fake.Options{ReplyTokens: 6})
	body := func(model string) string {
		return `{"model":"` + model + `","messages":[{"role":"user","content":"x"}],"stream":true,"stream_options":{"include_usage":true}}`
	}
	t.Run("cut", func(t *testing.T) {
		resp := post(t, url, body("fake/fault-cut"), nil)
		evs, err := events(t, resp.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) || len(evs) != 4 {
			t.Errorf("%d events, err %v; want 4 and an unexpected EOF", len(evs), err)
		}
	})
	t.Run("midstream-error", func(t *testing.T) {
		resp := post(t, url, body("fake/fault-midstream-error"), nil)
		evs, err := events(t, resp.Body)
		if err != nil || len(evs) != 5 || !strings.HasPrefix(evs[4], `{"error":{"message":`) {
			t.Errorf("events %q, err %v", evs, err)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		resp := post(t, url, body("fake/fault-malformed"), nil)
		evs, err := events(t, resp.Body)
		if err != nil || len(evs) != 6 || json.Valid([]byte(evs[4])) || evs[5] != "[DONE]" {
			t.Errorf("events %q, err %v", evs, err)
		}
	})
	t.Run("nousage", func(t *testing.T) {
		resp := post(t, url, body("fake/fault-nousage"), nil)
		evs, err := events(t, resp.Body)
		if err != nil || len(evs) != 1+6+1+1 {
			t.Errorf("events %q, err %v", evs, err)
		}
		for _, ev := range evs {
			if strings.Contains(ev, `"prompt_tokens"`) {
				t.Errorf("usage sent: %s", ev)
			}
		}
	})
}

func TestHangHoldsUntilClientLeaves(t *testing.T) {
	arrived := make(chan struct{})
	f, url := start(t, fake.Options{OnRequest: func(*http.Request, []byte) { close(arrived) }})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions",
		strings.NewReader(`{"model":"fake/fault-hang","messages":[{"role":"user","content":"x"}]}`))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := http.DefaultClient.Do(req)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	}()
	<-arrived
	if f.InFlight() != 1 {
		t.Errorf("in flight %d, want 1", f.InFlight())
	}
	cancel()
	wg.Wait()
}

func TestCloseReleasesStall(t *testing.T) {
	f := fake.New(fake.Options{})
	ts := httptest.NewServer(f)
	resp := post(t, ts.URL, `{"model":"fake/fault-stall","messages":[{"role":"user","content":"x"}],"stream":true}`, nil)
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := io.ReadAll(br); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("body after Close: %v, want the connection dropped", err)
	}
	done := make(chan struct{})
	go func() { ts.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("server did not shut down after Close")
	}
}
