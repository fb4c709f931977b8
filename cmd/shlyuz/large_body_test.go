package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// Issue 24: the buffer of a large body goes back to its pool once a
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
