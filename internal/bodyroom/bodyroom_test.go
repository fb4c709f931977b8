package bodyroom

import (
	"bytes"
	"testing"
)

func TestBodyRoomSplicesAndUndoes(t *testing.T) {
	const client = `{"model":"a/b","messages":[{"role":"user","content":"hi"}],"temperature":0.5}`
	value := []byte(`[{"role":"user","content":"hi"}]`)
	for _, tc := range []struct {
		name           string
		spare          int // capacity after the client's body
		prefix, suffix string
		want           string // "": no room
	}{
		{"fits", 0, `{"messages":`, `,"model":"b"}`, `{"messages":[{"role":"user","content":"hi"}],"model":"b"}`},
		{"suffix into the spare capacity", 48, `{"messages":`, `,"model":"b","temperature":0.5,"max_tokens":9,"stream":false}`,
			`{"messages":[{"role":"user","content":"hi"}],"model":"b","temperature":0.5,"max_tokens":9,"stream":false}`},
		{"suffix past the capacity", 10, `{"messages":`, `,"model":"b","temperature":0.5,"max_tokens":9,"stream":false}`, ""},
		{"prefix longer than what precedes", 0, `{"model":"a-much-longer-name","messages":`, `}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := make([]byte, len(client), len(client)+tc.spare)
			copy(buf, client)
			at := bytes.Index(buf, value)
			room := New(buf, "messages", buf[at:at+len(value)])
			if room == nil {
				t.Fatal("the value lies in the buffer")
			}
			s, ok := Wrap(room, buf[at:at+len(value)], []byte(tc.prefix), []byte(tc.suffix))
			if ok != (tc.want != "") || string(s.Body) != tc.want {
				t.Fatalf("spliced %v: %s", ok, s.Body)
			}
			if ok && &s.Body[len(tc.prefix)] != &buf[at] {
				t.Fatal("the value was copied")
			}
			s.Undo()
			if string(buf) != client {
				t.Fatalf("after Undo: %s", buf)
			}
		})
	}
}

func TestBodyRoomOnlyOverItsOwnBuffer(t *testing.T) {
	buf := []byte(`{"messages":[1,2,3]}`)
	other := []byte(`[1,2,3]`)
	if New(buf, "messages", other) != nil {
		t.Fatal("a value elsewhere got a room")
	}
	room := New(buf, "messages", buf[12:19])
	if _, ok := Wrap(room, other, []byte(`{"messages":`), []byte(`}`)); ok {
		t.Fatal("spliced around a value that is not in the buffer")
	}
	capped := buf[12:19:19] // as splitObject cuts a field's capacity
	s, ok := Wrap(New(buf, "messages", capped), capped, []byte(`{"messages":`), []byte(`}`))
	if !ok || string(s.Body) != string(buf) {
		t.Fatalf("a span with its capacity cut: %v %s", ok, s.Body)
	}
}
