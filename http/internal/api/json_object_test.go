package api

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// objectSeeds are bodies splitObject must read as encoding/json does: valid
// and broken in every way the grammar allows.
var objectSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, "\t{\"a\" : [1, 2.5e-3, -0, true, false, null, {\"b\":\"c\"}]}\r\n",
	`{"model":"a/b","messages":[{"role":"user","content":"hi \"there\" \\ \/ \b\f\n\r\t \u0436\uD83D\uDE80"}],"stream":true}`,
	`{"a":1,"a":2}`, `{"k\u0065y":1}`, `{"k\"":1}`, `{"\u00e9":1,"é":2}`, "{\"\xff\":1}", "{\"a\":\"\xff\xfe\"}",
	`null`, ` null`, `[]`, `"x"`, `1`, `true`, ``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,"a":1}`, `{"a":1}}`, `{"a":1} x`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+}`, `{"a":-}`, `{"a":+1}`, `{"a":1E5}`, `{"a":0.0e-0}`, `{"a":--1}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":True}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"` + "\x01" + `"}`, `{"a":"` + "\x7f" + `"}`,
	`{"a":"\\"}`, `{"a":"\\\""}`, `{"a":"\"}`, `{"a":[1 2]}`, `{"a":[,]}`, `{"a":[1,]}`, `{"a":{"b"}}`, `{"a":{"b":1,}}`, `{"a":[]}`,
	"{\"a\":\"\xdc\xdc\xdc\xdc\xdc\xdc\xdc\xdc\xdc\xa2\xa2\x81\x9f\x80\x80\x80\x80\x80\"}", "{\"a\":\"12345678\x1f\"}", "{\"a\":\"1234567\\\\\\n\"}",
	"\ufeff{}", `{"a":"b"` + strings.Repeat(" ", 20) + `}`, `{"` + strings.Repeat("k", 100) + `":"` + strings.Repeat("v\\n", 100) + `"}`,
	`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`, `{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
}

// TestSplitObjectReadsAsEncodingJSON: the same members, byte for byte, and the
// same error, word for word.
func TestSplitObjectReadsAsEncodingJSON(t *testing.T) {
	for _, s := range objectSeeds {
		checkSplit(t, []byte(s))
	}
}

func checkSplit(t *testing.T, body []byte) {
	got, err := SplitObject(body)
	var want map[string]json.RawMessage
	werr := json.Unmarshal(body, &want)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("splitObject(%q): error %v, encoding/json says %v", body, err, werr)
	}
	if (got == nil) != (want == nil) || !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		t.Fatalf("splitObject(%q) = %q, encoding/json reads %q", body, got, want)
	}
}

// TestSplitObjectSpansTheBody: the values are the body's own bytes, not a
// copy, and appending to one never writes into the body.
func TestSplitObjectSpansTheBody(t *testing.T) {
	body := []byte(`{"model":"a/b","n":2}`)
	fields, err := SplitObject(body)
	if err != nil {
		t.Fatal(err)
	}
	_ = append(fields["model"], 'x')
	body[12] = 'c'
	if string(fields["model"]) != `"a/c"` || string(fields["n"]) != "2" || string(body) != `{"model":"a/c","n":2}` {
		t.Fatalf("%q, body %q", fields, body)
	}
}

// FuzzSplitObject: whatever the body, splitObject and encoding/json agree.
func FuzzSplitObject(f *testing.F) {
	for _, s := range objectSeeds {
		if len(s) < 1000 {
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkSplit(t, body) })
}
