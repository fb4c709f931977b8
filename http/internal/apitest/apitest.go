// Package apitest holds what the tests of the HTTP protocol packages share:
// a body read both by a fast path and by the full decode it stands in for, a
// JSON comparison that tells the fast paths' output from the full decode's,
// and large chat bodies.
package apitest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// CheckSameJSON fails t unless the fast path's JSON got (messages, a field) means what
// the full decode's want does: byte for byte, or, where the client's literals
// escape more than encoding/json does, the same values, in JSON a strict
// reader takes (no bad UTF-8, no surrogate half alone; a key repeated in a
// client's schema is the client's).
func CheckSameJSON(t *testing.T, body, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	// A repeated key of the client's (inside a schema) is the client's own:
	// the full decode keeps it too.
	if !jsontext.Value(got).IsValid(jsontext.AllowDuplicateNames(true)) {
		t.Fatalf("%s: messages\n%s\nare not strict JSON", body, got)
	}
	if !reflect.DeepEqual(decodeAny(t, got), decodeAny(t, want)) {
		t.Fatalf("%s: messages\n%s\nwant\n%s", body, got, want)
	}
}

func decodeAny(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

// BigChat is a chat request of about size bytes: a system message and a user
// message of English prose and code (escaped newlines and quotes).
func BigChat(size int) []byte {
	const chunk = `The gateway reserves the worst case of a request before it calls the upstream, and settles to the real price when the reply ends.\n` +
		`func settle(r *Reservation, u Usage) int64 {\n\tcost := u.PromptTokens * r.Price // \"held\" is the ceiling\n}\n\n`
	head := `{"model":"openai/gpt-4o-mini","messages":[{"role":"system","content":"You are a careful coding assistant."},{"role":"user","content":"`
	tail := `"}],"temperature":0.7,"max_tokens":256,"stream":false}`
	text := strings.Repeat(chunk, max(0, size-len(head)-len(tail))/len(chunk)+1)[:max(0, size-len(head)-len(tail))]
	return []byte(head + strings.TrimRight(text, `\`) + tail)
}
