package api

import (
	"bytes"
	"testing"
)

// fieldsPath is the path of a request line as bytes.Fields splits it.
func fieldsPath(line []byte) string {
	f := bytes.Fields(line)
	if len(f) < 2 {
		return ""
	}
	path, _, _ := bytes.Cut(f[1], []byte("?"))
	return string(path)
}

// linePath finds the path bytes.Fields finds, and anthropicPath decides as
// anthropicRoute does.
func TestLinePathAndAnthropicPath(t *testing.T) {
	for _, line := range []string{
		"POST /api/v1/messages HTTP/1.1\r\n", "POST /api/v1/chat/completions HTTP/1.1\r\nHost: x\r\n",
		"POST /API/V1/Messages/ HTTP/1.1\r\n", "POST  \t /api/v1/messages/count_tokens?beta=true HTTP/1.1\n",
		"GET\n", "\n", "  \n", "POST /api/v1/messages", "POST\u00a0/api/v1/messages HTTP/1.1\n", "POST /api/v1/meſſages HTTP/1.1\n",
		"POST /api/v1/messa\u2028ges HTTP/1.1\n", "POST /api/v1/\xffmessages HTTP/1.1\n", "POST ?a=b HTTP/1.1\n",
		"POST /api/v1/messages\v HTTP/1.1\n", "POST /api/v1/messages//\n",
	} {
		b := []byte(line)
		cut, _, ok := bytes.Cut(b, []byte("\n"))
		got, done := linePath(b, false)
		if done != ok {
			t.Errorf("%q: whole line %v, want %v", line, done, ok)
			continue
		}
		if !ok {
			if got, _ = linePath(b, true); string(got) != fieldsPath(b) {
				t.Errorf("%q, full: path %q, want %q", line, got, fieldsPath(b))
			}
			continue
		}
		want := fieldsPath(cut)
		if string(got) != want {
			t.Errorf("%q: path %q, want %q", line, got, want)
		}
		if anthropicPath(got) != anthropicRoute(want) {
			t.Errorf("%q: anthropicPath %v, anthropicRoute %v", line, anthropicPath(got), anthropicRoute(want))
		}
	}
}
