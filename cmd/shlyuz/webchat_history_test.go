package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// convMessage and conversationView are the chat history's wire form.
type convMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type conversationView struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Model    string        `json:"model"`
	Messages []convMessage `json:"messages"`
	Error    *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"error"`
}

// api calls a web chat route as the page's script does: JSON, with the CSRF token in a header.
func (u *browserless) api(method, path, token string, body any, out any) int {
	u.t.Helper()
	var rd *strings.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			u.t.Fatal(err)
		}
		rd = strings.NewReader(string(b))
	} else {
		rd = strings.NewReader("")
	}
	req, _ := http.NewRequest(method, u.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept-Language", "en")
	if token != "" {
		req.Header.Set("X-CSRF-Token", token)
	}
	st, raw := u.do(req)
	if out != nil && raw != "" {
		if err := json.Unmarshal([]byte(raw), out); err != nil {
			u.t.Fatalf("%s %s: %d %q: %v", method, path, st, raw, err)
		}
	}
	return st
}

// chatToken opens the chat page and returns its CSRF token.
func (u *browserless) chatToken() string {
	u.t.Helper()
	if st, _ := u.get("/account/chat"); st != 200 {
		u.t.Fatalf("chat page: %d\n%s", st, u.last)
	}
	return u.csrf()
}

// TestWebAreaChatHistory: the web chat's conversations are kept on the server
// per account. One exchange streamed through the chat and saved is there for
// the same account signed in again from a fresh cookie jar (another browser);
// another account gets 404 for it on every route; writes without the
// session's CSRF token are refused; a conversation's size and an account's
// number of conversations are bounded with a clear message.
func TestWebAreaChatHistory(t *testing.T) {
	g := startWebGateway(t)
	u, email := g.signUp(t)
	if id := g.accountIDOf(t, email); call(t, g.base, "POST", "/api/admin/accounts/"+id+"/topups", adminToken,
		map[string]any{"credits": 10_000_000, "idempotency_key": "history-" + id}, nil) != 200 {
		t.Fatal("top up")
	}

	token := u.chatToken()
	if !strings.Contains(u.last, "No conversations yet") || !strings.Contains(u.last, `data-conversation=""`) {
		t.Fatalf("a new account's chat page:\n%s", u.last)
	}
	// One exchange, streamed through the chat, then kept as the page's script keeps it.
	req, _ := http.NewRequest("POST", g.base+"/account/chat", strings.NewReader(`{"model":"test/model","messages":[{"role":"user","content":"Hello, history\nsecond line"}]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", token)
	st, sse := u.do(req)
	if st != 200 || !strings.Contains(sse, "data: [DONE]") {
		t.Fatalf("web chat: %d\n%s", st, sse)
	}
	reply := sseText(t, sse)
	msgs := []convMessage{{"user", "Hello, history\nsecond line"}, {"assistant", reply}}
	var conv conversationView
	if st := u.api("POST", "/account/chat/conversations", token, map[string]any{"model": "test/model", "messages": msgs}, &conv); st != 201 ||
		!strings.HasPrefix(conv.ID, "conv-") || conv.Title != "Hello, history" || conv.Model != "test/model" {
		t.Fatalf("create: %d %+v", st, conv)
	}
	msgs = append(msgs, convMessage{"user", "И ещё **раз**"}, convMessage{"assistant", ""}) // an image-only reply has no text
	if st := u.api("PUT", "/account/chat/conversations/"+conv.ID, token, map[string]any{"model": "google/gemini-2.5-flash-image", "messages": msgs}, nil); st != 200 {
		t.Fatalf("save: %d %s", st, u.last)
	}

	t.Run("survives a new session", func(t *testing.T) {
		v := g.user(t)
		v.get("/login")
		if st, body := v.post("/login", url.Values{"email": {email}, "password": {"correct horse battery"}}); st != 200 || !strings.Contains(body, "Bought credits") {
			t.Fatalf("login again: %d", st)
		}
		v.chatToken()
		if !strings.Contains(v.last, `data-conversation="`+conv.ID+`"`) || !strings.Contains(v.last, `<a href="/account/chat?c=`+conv.ID+`" aria-current="page">Hello, history</a>`) ||
			!strings.Contains(v.last, `<option value="google/gemini-2.5-flash-image" selected>`) {
			t.Fatalf("the chat page of a new session does not open the conversation:\n%s", v.last)
		}
		var got conversationView
		if st := v.api("GET", "/account/chat/conversations/"+conv.ID, "", nil, &got); st != 200 || !reflect.DeepEqual(got.Messages, msgs) {
			t.Fatalf("the conversation in a new session: %d %+v; want %+v", st, got.Messages, msgs)
		}
		var list struct{ Data []conversationView }
		if st := v.api("GET", "/account/chat/conversations", "", nil, &list); st != 200 || len(list.Data) != 1 || list.Data[0].ID != conv.ID || list.Data[0].Messages != nil {
			t.Fatalf("list: %d %+v", st, list)
		}
		if st, _ := v.get("/account/chat?new=1"); st != 200 || !strings.Contains(v.last, `data-conversation=""`) || !strings.Contains(v.last, "Hello, history") {
			t.Fatalf("a new conversation's page: %d", st)
		}
	})

	t.Run("another account sees none of it", func(t *testing.T) {
		w, _ := g.signUp(t)
		wt := w.chatToken()
		if strings.Contains(w.last, conv.ID) || strings.Contains(w.last, "Hello, history") {
			t.Fatal("another account's chat page lists the conversation")
		}
		body := map[string]any{"model": "test/model", "messages": []convMessage{{"user", "mine now"}}}
		for _, tc := range []struct{ method, path string }{
			{"GET", "/account/chat/conversations/" + conv.ID},
			{"PUT", "/account/chat/conversations/" + conv.ID},
			{"DELETE", "/account/chat/conversations/" + conv.ID},
			{"GET", "/account/chat/conversations/no-such-conversation"},
		} {
			var e conversationView
			if st := w.api(tc.method, tc.path, wt, body, &e); st != 404 || e.Error == nil || e.Error.Code != "conversation_not_found" {
				t.Errorf("%s %s: %d %s", tc.method, tc.path, st, w.last)
			}
		}
		if st, _ := w.get("/account/chat?c=" + conv.ID); st != 404 {
			t.Errorf("the chat page with another's conversation: %d", st)
		}
		w.chatToken()
		if st, _ := w.post("/account/chat/conversations/"+conv.ID+"/delete", url.Values{}); st != 404 {
			t.Errorf("the delete form on another's conversation: %d", st)
		}
		var list struct{ Data []conversationView }
		if st := w.api("GET", "/account/chat/conversations", "", nil, &list); st != 200 || len(list.Data) != 0 {
			t.Errorf("another account's list: %d %+v", st, list)
		}
		wantConversation(t, u, conv.ID, msgs)
	})

	t.Run("CSRF refused", func(t *testing.T) {
		body := map[string]any{"model": "test/model", "messages": []convMessage{{"user", "forged"}}}
		for _, tok := range []string{"", strings.Repeat("0", 64)} {
			for _, tc := range []struct{ method, path string }{
				{"POST", "/account/chat/conversations"},
				{"PUT", "/account/chat/conversations/" + conv.ID},
				{"DELETE", "/account/chat/conversations/" + conv.ID},
			} {
				if st := u.api(tc.method, tc.path, tok, body, nil); st != 403 || !strings.Contains(u.last, "The form has expired") {
					t.Errorf("%s %s with token %q: %d %s", tc.method, tc.path, tok, st, u.last)
				}
			}
		}
		stranger := g.user(t) // signed out: the script is told so, not sent to the login page
		if st := stranger.api("PUT", "/account/chat/conversations/"+conv.ID, token, body, nil); st != 401 || !strings.Contains(stranger.last, "Your session has ended") {
			t.Errorf("a signed-out script's save: %d %s", st, stranger.last)
		}
		u.chatToken()
		if st, _ := u.post("/account/chat/conversations/"+conv.ID+"/delete", url.Values{"csrf": {strings.Repeat("0", 64)}}); st != 403 {
			t.Errorf("the delete form with a forged token: %d", st)
		}
		wantConversation(t, u, conv.ID, msgs)
	})

	t.Run("bad input and bounds", func(t *testing.T) {
		long := strings.Repeat("я", 140_000) // 280,000 bytes
		many := make([]convMessage, 201)
		for i := range many {
			many[i] = convMessage{[]string{"user", "assistant"}[i%2], "x"}
		}
		for _, tc := range []struct {
			name   string
			body   any
			status int
			says   string
		}{
			{"too many bytes", map[string]any{"model": "test/model", "messages": []convMessage{{"user", long}}}, 413, "too long to keep (over 256 KB or 200 messages)"},
			{"too many messages", map[string]any{"model": "test/model", "messages": many}, 413, "Start a new one"},
			{"a system message", map[string]any{"model": "test/model", "messages": []convMessage{{"system", "x"}}}, 400, "user's"},
			{"an empty user message", map[string]any{"model": "test/model", "messages": []convMessage{{"user", ""}}}, 400, "user's"},
			{"an unknown model", map[string]any{"model": "no/such", "messages": msgs}, 404, "no/such"},
			{"not JSON", "{", 400, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, m := range []struct{ method, path string }{{"POST", "/account/chat/conversations"}, {"PUT", "/account/chat/conversations/" + conv.ID}} {
					if st := u.api(m.method, m.path, token, tc.body, nil); st != tc.status || !strings.Contains(u.last, tc.says) {
						t.Errorf("%s: %d %s; want %d saying %q", m.method, st, u.last, tc.status, tc.says)
					}
				}
			})
		}
		wantConversation(t, u, conv.ID, msgs)

		w, _ := g.signUp(t)
		wt := w.chatToken()
		var odd conversationView // control characters (NUL: PostgreSQL refuses it in text) are kept in messages, not in the title
		if st := w.api("POST", "/account/chat/conversations", wt, map[string]any{"model": "test/model", "messages": []convMessage{{"user", "a\x00b\tc\nd"}}}, &odd); st != 201 || odd.Title != "a b c" {
			t.Fatalf("a message with control characters: %d %s", st, w.last)
		}
		for i := range 99 {
			if st := w.api("POST", "/account/chat/conversations", wt, map[string]any{"model": "test/model", "messages": []convMessage{{"user", fmt.Sprint("n", i)}}}, nil); st != 201 {
				t.Fatalf("conversation %d: %d %s", i, st, w.last)
			}
		}
		if st := w.api("POST", "/account/chat/conversations", wt, map[string]any{"model": "test/model", "messages": []convMessage{{"user", "one too many"}}}, nil); st != 409 ||
			!strings.Contains(w.last, "You keep 100 conversations, the most allowed. Delete one to start another.") {
			t.Fatalf("the 101st conversation: %d %s", st, w.last)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if st := u.api("DELETE", "/account/chat/conversations/"+conv.ID, token, nil, nil); st != 204 {
			t.Fatalf("delete: %d %s", st, u.last)
		}
		if st := u.api("GET", "/account/chat/conversations/"+conv.ID, "", nil, nil); st != 404 {
			t.Fatalf("after delete: %d", st)
		}
		var other conversationView
		u.api("POST", "/account/chat/conversations", token, map[string]any{"model": "test/model", "messages": []convMessage{{"user", "by the form"}}}, &other)
		u.chatToken()
		if st, body := u.post("/account/chat/conversations/"+other.ID+"/delete", url.Values{}); st != 200 || !strings.HasSuffix(u.lastURL, "/account/chat?new=1") ||
			!strings.Contains(body, "No conversations yet") {
			t.Fatalf("the delete form: %d at %s", st, u.lastURL)
		}
	})
}

// wantConversation checks the account still has the conversation, unchanged.
func wantConversation(t *testing.T, u *browserless, id string, msgs []convMessage) {
	t.Helper()
	var got conversationView
	if st := u.api("GET", "/account/chat/conversations/"+id, "", nil, &got); st != 200 || !reflect.DeepEqual(got.Messages, msgs) {
		t.Fatalf("the conversation changed: %d %+v", st, got.Messages)
	}
}

// sseText is the text a streamed chat reply adds up to.
func sseText(t *testing.T, sse string) string {
	t.Helper()
	var b strings.Builder
	for _, data := range sseEvents(t, strings.NewReader(sse)) {
		if data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		for _, c := range chunk.Choices {
			b.WriteString(c.Delta.Content)
		}
	}
	if b.Len() == 0 {
		t.Fatalf("an empty reply:\n%s", sse)
	}
	return b.String()
}
