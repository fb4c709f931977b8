package plainjson

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestMarshal(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"html stays", map[string]any{"text": "<b>a & b</b>"}, `{"text":"<b>a & b</b>"}`},
		{"line separators escaped", "a\u2028b\u2029", `"a\u2028b\u2029"`},
		{"invalid utf-8 replaced", "\xff", `"\ufffd"`},
		{"no trailing newline", []int{1, 2}, `[1,2]`},
		{"raw message compacted", json.RawMessage("{ \"a\" : 1 }"), `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Marshal = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestMarshalIsJSONMarshalUnescaped: apart from <, > and &, Marshal writes
// what json.Marshal writes.
func TestMarshalIsJSONMarshalUnescaped(t *testing.T) {
	v := map[string]any{"s": "x<y>&z \u2028 \x01 \"q\" \\", "n": 1.5, "a": []any{nil, true}}
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ esc, raw string }{{`\u003c`, "<"}, {`\u003e`, ">"}, {`\u0026`, "&"}} {
		want = bytes.ReplaceAll(want, []byte(r.esc), []byte(r.raw))
	}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
}

func TestMarshalError(t *testing.T) {
	if _, err := Marshal(func() {}); err == nil {
		t.Error("Marshal of a func: no error")
	}
	if _, err := Marshal(json.RawMessage("{")); err == nil {
		t.Error("Marshal of invalid raw JSON: no error")
	}
}
