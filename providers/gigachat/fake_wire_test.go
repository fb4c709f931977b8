package gigachat

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
	"github.com/shlyuz/shlyuz/providers/internal/sberauth"
)

// These tests hold the fake to GigaChat's wire shapes (research §4), raw
// HTTP, no adapter: the adapter's tests are only as good as the fake.

func post(t *testing.T, url string, header map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	resp := adaptertest.Post(t, url, body, header)
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestFakeOAuth(t *testing.T) {
	u := startFake(t, fake.Options{}, nil)
	u.Fake.SetGigaChatTokenTTL(time.Minute)
	url := u.TS.URL + fakeOAuth
	good := map[string]string{
		"Authorization": "Basic " + testKey,
		"RqUID":         sberauth.NewRqUID(),
		"Content-Type":  "application/x-www-form-urlencoded",
		"Accept":        "application/json",
	}
	with := func(k, v string) map[string]string {
		h := map[string]string{}
		for a, b := range good {
			h[a] = b
		}
		if v == "" {
			delete(h, k)
		} else {
			h[k] = v
		}
		return h
	}
	for _, c := range []struct {
		name   string
		header map[string]string
		body   string
		status int
		want   string
	}{
		{"wrong key", with("Authorization", "Basic bm9wZQ=="), "scope=GIGACHAT_API_PERS", 401, `"code":6`},
		{"bearer", with("Authorization", "Bearer "+testKey), "scope=GIGACHAT_API_PERS", 401, `"code":6`},
		{"no RqUID", with("RqUID", ""), "scope=GIGACHAT_API_PERS", 400, `"code":4`},
		{"bad RqUID", with("RqUID", "not-a-uuid"), "scope=GIGACHAT_API_PERS", 400, `"code":4`},
		{"no scope", good, "", 400, `{"code":5,"message":"scope is empty"}`},
		{"foreign scope", good, "scope=OTHER", 400, `"code":7`},
	} {
		resp, b := post(t, url, c.header, c.body)
		if resp.StatusCode != c.status || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d %s, want %d with %s", c.name, resp.StatusCode, b, c.status, c.want)
		}
	}
	if n := u.Fake.GigaChatTokensIssued(); n != 0 {
		t.Errorf("issued %d tokens to bad requests", n)
	}
	before := time.Now()
	resp, b := post(t, url, good, "scope=GIGACHAT_API_B2B")
	var tr struct {
		AccessToken string `json:"access_token"`
		ExpiresAt   int64  `json:"expires_at"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &tr) != nil || tr.AccessToken == "" {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	exp := time.UnixMilli(tr.ExpiresAt)
	if exp.Before(before.Add(59*time.Second)) || exp.After(time.Now().Add(61*time.Second)) {
		t.Errorf("expires_at %d (%v) is not now + 1 minute in milliseconds", tr.ExpiresAt, exp)
	}

	// The token opens the chat endpoint; a made-up one, none, or an expired one do not.
	chat := u.TS.URL + fakeAPI + "/chat/completions"
	body := `{"model":"GigaChat","messages":[{"role":"user","content":"hi"}]}`
	for _, auth := range []string{"", "Bearer made-up", "Basic " + testKey} {
		resp, b := post(t, chat, map[string]string{"Authorization": auth}, body)
		if resp.StatusCode != 401 || string(b) != `{"status":401,"message":"Unauthorized"}` {
			t.Errorf("Authorization %q: %d %s", auth, resp.StatusCode, b)
		}
	}
	if resp, b := post(t, chat, map[string]string{"Authorization": "Bearer " + tr.AccessToken}, body); resp.StatusCode != 200 {
		t.Errorf("with the token: %d %s", resp.StatusCode, b)
	}
	u.Fake.ExpireGigaChatTokens()
	if resp, _ := post(t, chat, map[string]string{"Authorization": "Bearer " + tr.AccessToken}, body); resp.StatusCode != 401 {
		t.Errorf("expired token: %d", resp.StatusCode)
	}
	if n := u.Fake.GigaChatUnauthorized(); n != 4 {
		t.Errorf("401s = %d, want 4", n)
	}
}

// bearer gets a token from the fake.
func bearer(t *testing.T, u *fakeGigaChat) map[string]string {
	t.Helper()
	_, b := post(t, u.TS.URL+fakeOAuth, map[string]string{
		"Authorization": "Basic " + testKey, "RqUID": sberauth.NewRqUID(),
		"Content-Type": "application/x-www-form-urlencoded",
	}, "scope=GIGACHAT_API_PERS")
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(b, &tr)
	return map[string]string{"Authorization": "Bearer " + tr.AccessToken, "Content-Type": "application/json"}
}

func TestFakeChatShapes(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 3}, nil)
	h := bearer(t, u)
	chat := u.TS.URL + fakeAPI + "/chat/completions"

	resp, b := post(t, chat, h, `{"model":"GigaChat","messages":[{"role":"system","content":"s"},{"role":"user","content":"hello"}]}`)
	var r map[string]json.RawMessage
	if resp.StatusCode != 200 || json.Unmarshal(b, &r) != nil {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if _, hasID := r["id"]; hasID || string(r["object"]) != `"chat.completion"` || len(r["created"]) == 0 || len(r["model"]) == 0 {
		t.Errorf("reply %s", b)
	}
	if !strings.Contains(string(r["usage"]), `"precached_prompt_tokens":0`) ||
		!strings.Contains(string(r["choices"]), `{"message":{"content":"tok0 tok1 tok2","role":"assistant"},"index":0,"finish_reason":"stop"}`) {
		t.Errorf("reply %s", b)
	}

	// Streamed: data-only SSE, no ids, the role in the first delta, finish and usage together, then [DONE].
	req, _ := http.NewRequest(http.MethodPost, chat, strings.NewReader(`{"model":"GigaChat","messages":[{"role":"user","content":"hello"}],"stream":true}`))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	sresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer sresp.Body.Close()
	if ct := sresp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("Content-Type %q", ct)
	}
	var data []string
	sc := bufio.NewScanner(sresp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		d, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Errorf("line %q is not data", line)
		}
		data = append(data, d)
	}
	if len(data) != 5 || data[4] != "[DONE]" {
		t.Fatalf("events %q", data)
	}
	for i, d := range data[:4] {
		var c map[string]json.RawMessage
		if json.Unmarshal([]byte(d), &c) != nil {
			t.Fatalf("chunk %d %s", i, d)
		}
		if _, hasID := c["id"]; hasID || string(c["object"]) != `"chat.completion"` {
			t.Errorf("chunk %d %s", i, d)
		}
		_, usage := c["usage"]
		last := i == 3
		if usage != last || strings.Contains(d, "finish_reason") != last || strings.Contains(d, `"role":"assistant"`) != (i == 0) {
			t.Errorf("chunk %d %s", i, d)
		}
	}

	// What GigaChat refuses, the fake refuses.
	for _, c := range []struct {
		body   string
		status int
	}{
		{`{"model":"GigaChat","messages":[{"role":"user","content":"a"},{"role":"system","content":"late"}]}`, 422},
		{`{"model":"GigaChat","messages":[{"role":"tool","content":"a"}]}`, 422},
		{`{"model":"GigaChat","messages":[{"role":"user","content":[{"type":"text","text":"a"}]}]}`, 422},
		{`{"model":"GigaChat","messages":[{"role":"user","content":"a","attachments":["no-such-file"]}]}`, 400},
		{`{"model":"GigaChat","messages":[{"role":"assistant","content":"","function_call":{"name":"f","arguments":"{}"}}]}`, 422},
		{`{"model":"GigaChat","messages":[{"role":"function","name":"f","content":"not json"}]}`, 422},
		{`{"model":"GigaChat","messages":[]}`, 422},
		{`{"messages":[{"role":"user","content":"a"}]}`, 400},
	} {
		resp, b := post(t, chat, h, c.body)
		if resp.StatusCode != c.status || !strings.HasPrefix(string(b), `{"status":`) {
			t.Errorf("%s: %d %s, want %d", c.body, resp.StatusCode, b, c.status)
		}
	}
	// A quota fault is GigaChat's 402.
	if resp, b := post(t, chat, h, `{"model":"fault-quota","messages":[{"role":"user","content":"a"}]}`); resp.StatusCode != 402 ||
		string(b) != `{"status":402,"message":"Payment Required"}` {
		t.Errorf("quota: %d %s", resp.StatusCode, b)
	}
}
