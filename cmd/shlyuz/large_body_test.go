package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// The buffer of a large body goes back to its pool once a
// non-streamed chat reply is written, and the next large body reuses it. No
// request may see another's bytes: each upstream call carries its own
// prompt, whole, whatever the sizes and modes before it (a longer body
// before a shorter one, a stream, which keeps its buffer, in between).
func TestLargeBodiesReusedCarryTheirOwnPrompt(t *testing.T) {
	_, key := account(t, h.base, 1_000_000_000, nil)
	for i, tc := range []struct {
		size   int
		stream bool
	}{
		{200_000, false}, {150_000, false}, {70_000, false}, {150_000, true}, {100_000, false}, {260_000, false}, {66_000, false},
	} {
		marker := fmt.Sprintf("<<prompt-%d>>", i)
		filler := strings.Repeat(fmt.Sprintf("line %d of a large context, with \"quotes\" and a\ttab\n", i), tc.size/50)
		body := chatBody("test/model", tc.stream, 8)
		body["messages"] = []map[string]any{{"role": "user", "content": marker + filler + marker}}
		resp := postChat(t, h.base, key, body)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
		var sent struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.Unmarshal(h.fake.LastRequest(), &sent); err != nil {
			t.Fatalf("request %d: the upstream got no valid JSON: %v", i, err)
		}
		if len(sent.Messages) != 1 || sent.Messages[0].Content != marker+filler+marker {
			got := ""
			if len(sent.Messages) > 0 {
				got = sent.Messages[0].Content
			}
			t.Fatalf("request %d (%d bytes, stream %v): the upstream got another prompt (%d bytes, starts %.40q)", i, tc.size, tc.stream, len(got), got)
		}
	}
}

// The concurrent variant: many large bodies at once, streamed and not, in
// rounds, so that buffers go back to their pool and are taken again while
// other requests are still being served. A buffer given back while anything
// still read it (a request's upstream call, its stream) would carry another
// request's bytes by then: every upstream call must carry its own request's
// prompt, whole, once, and every reply count that prompt's tokens.
func TestLargeBodiesReusedConcurrentlyCarryTheirOwnPrompt(t *testing.T) {
	_, key := account(t, h.base, 1_000_000_000, nil)
	const workers, rounds = 16, 8
	sizes := []int{66_000, 68_000, 70_000, 150_000} // three in one pool class of buffers, to be reused the more
	prompt := func(w, r int) string {
		i := w*rounds + r
		marker := fmt.Sprintf("[[concurrent-prompt-%d]]", i)
		filler := strings.Repeat(fmt.Sprintf("line %d of a large context, with \"quotes\" and a\ttab\n", i), sizes[(w+r)%len(sizes)]/50)
		return marker + filler + marker
	}
	var mu sync.Mutex
	seen := map[string]int{} // prompt → upstream calls that carried it, whole
	var strays []string      // upstream calls of this test that carried no prompt of it, whole
	see := func(_ *http.Request, body []byte) {
		if !bytes.Contains(body, []byte("[[concurrent-prompt-")) {
			return // another test's request
		}
		var sent struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		err := json.Unmarshal(body, &sent)
		mu.Lock()
		defer mu.Unlock()
		if err != nil || len(sent.Messages) != 1 {
			strays = append(strays, fmt.Sprintf("%d bytes, not one message (%v): %.60q", len(body), err, body))
			return
		}
		seen[sent.Messages[0].Content]++
	}
	onFakeRequest.Store(&see)
	defer onFakeRequest.Store(nil)

	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				p := prompt(w, r)
				stream := (w+r)%3 == 0
				body := chatBody("test/model", stream, 8)
				body["messages"] = []map[string]any{{"role": "user", "content": p}}
				if stream {
					body["stream_options"] = map[string]any{"include_usage": true}
				}
				if err := largeReply(h.base, key, body, stream, max(1, utf8.RuneCountInString(p)/4)); err != nil {
					errs <- fmt.Errorf("worker %d, round %d (%d bytes, stream %v): %w", w, r, len(p), stream, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range strays {
		t.Errorf("the upstream got a mangled request: %s", s)
	}
	for w := range workers {
		for r := range rounds {
			if n := seen[prompt(w, r)]; n != 1 {
				t.Errorf("worker %d, round %d: the upstream got its prompt whole %d times, want once", w, r, n)
			}
		}
	}
	if len(seen) != workers*rounds {
		t.Errorf("the upstream got %d distinct prompts, want %d", len(seen), workers*rounds)
	}
}

// largeReply posts body and checks the reply: 200, and the prompt tokens
// the fake upstream counted of the prompt it got (its characters / 4).
func largeReply(base, key string, body map[string]any, stream bool, promptTokens int) error {
	resp, err := sendChat(base, key, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d: %.200s", resp.StatusCode, data)
	}
	var usage struct {
		Usage *struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if !stream {
		if err := json.Unmarshal(data, &usage); err != nil {
			return err
		}
	} else {
		for line := range strings.SplitSeq(string(data), "\n") {
			if chunk, ok := strings.CutPrefix(line, "data: "); ok && chunk != "[DONE]" && strings.Contains(chunk, `"usage"`) {
				if err := json.Unmarshal([]byte(chunk), &usage); err != nil {
					return err
				}
			}
		}
	}
	if usage.Usage == nil || usage.Usage.PromptTokens != promptTokens {
		return fmt.Errorf("the reply's usage %+v, want %d prompt tokens", usage.Usage, promptTokens)
	}
	return nil
}

// A large body's messages go upstream where the client's body holds them,
// with the adapter's fields written around them in place (shlyuz.BodyRoom);
// what the upstream gets must still be the client's request, whole, on every
// attempt: a fallback after an upstream's 500 writes its fields where the
// first attempt wrote its own, and a body whose messages come first (as the
// Python SDK writes them), with the client's whitespace, or sent chunked,
// has its fields put back as well; a stream's call sends its fields and the
// client's messages one after the other. Anthropic's Messages and the
// Responses API lend the buffer they wrote chat's messages into alike; a
// Messages request to an Anthropic upstream goes as the client wrote it,
// members byte for byte, a stream's messages where the client's body holds
// them.
func TestLargeBodyReachesEveryAttemptWhole(t *testing.T) {
	_, key := account(t, h.base, 1_000_000_000, nil)
	content := "[[whole]]" + strings.Repeat("a line of a large context, with \"quotes\", a\ttab and ünïcödé\n", 3000) + "[[whole]]"
	text, _ := json.Marshal(content)
	messages, _ := json.Marshal([]map[string]any{{"role": "user", "content": content}})
	const present = "*" // the field is there, whatever its value
	for _, tc := range []struct {
		name, path string
		body       string
		chunked    bool
		models     []string          // the upstream model of each attempt, in order
		fields     map[string]string // fields each attempt carries, raw
	}{
		{"fallback after a 500", "chat/completions",
			`{"model":"faulty/fault-500","models":["faulty/fault-500","test/other"],"messages":` + string(messages) +
				`,"temperature":0.25,"x_custom":{"a":[1,2]},"max_tokens":8,"usage":{"include":true}}`,
			false, []string{"faulty/fault-500", "test/other"}, map[string]string{"temperature": "0.25", "max_tokens": "8"}},
		{"a stream's fallback after a 500", "chat/completions",
			`{"messages":` + string(messages) + `,"stream":true,"model":"faulty/fault-500","models":["faulty/fault-500","test/other"],"max_tokens":8}`,
			false, []string{"faulty/fault-500", "test/other"}, map[string]string{"stream": "true", "stream_options": `{"include_usage":true}`}},
		{"messages first, spaced", "chat/completions",
			"{\n  \"messages\" : " + string(messages) + " ,\n  \"model\" : \"test/model\"\n}", false,
			[]string{"test/model"}, map[string]string{"stream": "false"}},
		{"messages first, chunked", "chat/completions",
			`{"messages":` + string(messages) + `,"model":"test/model","top_p":1}`, true,
			[]string{"test/model"}, map[string]string{"top_p": "1", "stream": "false"}},
		{"Anthropic's Messages, past a dead upstream", "messages",
			`{"model":"fallback/model","max_tokens":8,"messages":` + string(messages) +
				`,"tools":[{"name":"get","description":"Gets it.","input_schema":{"type":"object","properties":{"q":{"type":"string"}}}}]}`,
			false, []string{"fallback/model"}, map[string]string{"max_tokens": "8", "tools": present}},
		{"Anthropic's Messages, streamed", "messages",
			`{"model":"test/model","max_tokens":8,"stream":true,"messages":` + string(messages) + `}`,
			false, []string{"test/model"}, map[string]string{"stream": "true"}},
		{"Anthropic's Messages to an Anthropic upstream, streamed", "messages",
			`{"model":"claude/model","max_tokens":8,"stream":true,"messages":` + string(messages) + `,"metadata":{ "user_id" : "u-1" }}`,
			false, []string{"model"}, map[string]string{"stream": "true", "max_tokens": "8", "metadata": `{ "user_id" : "u-1" }`}},
		{"Anthropic's Messages to an Anthropic upstream", "messages",
			`{"messages":` + string(messages) + `,"model":"claude/model","max_tokens":8}`,
			false, []string{"model"}, map[string]string{"max_tokens": "8"}},
		{"Responses, input a string", "responses",
			`{"model":"test/model","input":` + string(text) + `,"max_output_tokens":16}`,
			false, []string{"test/model"}, map[string]string{"max_tokens": "16"}},
		{"Responses, input items and tools", "responses",
			`{"model":"test/model","input":` + string(messages) + `,"tools":[{"type":"function","name":"get","parameters":{"type":"object"}}]}`,
			false, []string{"test/model"}, map[string]string{"tools": present}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got [][]byte
			see := func(_ *http.Request, body []byte) {
				if bytes.Contains(body, []byte("[[whole]]")) {
					mu.Lock()
					got = append(got, bytes.Clone(body))
					mu.Unlock()
				}
			}
			onFakeRequest.Store(&see)
			defer onFakeRequest.Store(nil)
			var r io.Reader = strings.NewReader(tc.body)
			if tc.chunked {
				r = io.MultiReader(r) // no length known: sent chunked
			}
			req, _ := http.NewRequest("POST", h.base+"/api/v1/"+tc.path, r)
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			reply, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, reply)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != len(tc.models) {
				t.Fatalf("the upstream got %d requests, want %d", len(got), len(tc.models))
			}
			for i, body := range got {
				var sent map[string]json.RawMessage
				if err := json.Unmarshal(body, &sent); err != nil {
					t.Fatalf("attempt %d: not JSON: %v", i, err)
				}
				var msgs []struct {
					Role    string
					Content json.RawMessage
				}
				if err := json.Unmarshal(sent["messages"], &msgs); err != nil || len(msgs) != 1 || msgs[0].Role != "user" || textOf(msgs[0].Content) != content {
					t.Fatalf("attempt %d: messages not the client's (%v)", i, err)
				}
				if m := string(sent["model"]); m != `"`+tc.models[i]+`"` {
					t.Errorf("attempt %d: model %s, want %q", i, m, tc.models[i])
				}
				for k, want := range tc.fields {
					if v, ok := sent[k]; !ok || want != present && string(v) != want {
						t.Errorf("attempt %d: %s is %s, want %s", i, k, v, want)
					}
				}
				for _, k := range []string{"usage", "models"} {
					if _, ok := sent[k]; ok {
						t.Errorf("attempt %d: the gateway's own field %q went upstream", i, k)
					}
				}
				if _, ok := sent["max_tokens"]; !ok {
					t.Errorf("attempt %d: no max_tokens", i)
				}
			}
		})
	}
}

// textOf is a chat message's text: its content string, or its text parts'
// texts one after the other.
func textOf(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct{ Type, Text string }
	_ = json.Unmarshal(content, &parts)
	for _, p := range parts {
		s += p.Text
	}
	return s
}
