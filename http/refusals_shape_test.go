package http

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz/http/internal/api"
)

// Anthropic's SDKs read {"type":"error","error":{"type","message"}}; OpenAI's
// and OpenRouter's read {"error":{"message","type","code","param"}}. A
// refusal made before a route's handler runs (the body reader, the
// connection cap, the key check, fasthttp's parse errors) answers each
// route's clients in their own shape.

// The routes Anthropic's clients call, and one OpenAI route beside them.
var shapeRoutes = []struct {
	path      string
	anthropic bool
}{
	{"/api/v1/messages", true},
	{"/api/v1/messages/count_tokens", true},
	{"/api/v1/chat/completions", false},
}

// checkShape fails unless body is the error of status in the route's shape:
// Anthropic's with the error type anthropicType, else OpenAI's with code.
func checkShape(t *testing.T, anthropic bool, body map[string]any, anthropicType, code string) {
	t.Helper()
	inner, _ := body["error"].(map[string]any)
	if inner == nil {
		t.Fatalf("no error object: %v", body)
	}
	if msg, _ := inner["message"].(string); msg == "" {
		t.Fatalf("no message: %v", body)
	}
	if anthropic {
		if body["type"] != "error" || inner["type"] != anthropicType {
			t.Fatalf("not Anthropic's error shape (want error.type %q): %v", anthropicType, body)
		}
		if _, ok := inner["param"]; ok {
			t.Fatalf("OpenAI's param in Anthropic's shape: %v", body)
		}
		return
	}
	if _, ok := body["type"]; ok {
		t.Fatalf("Anthropic's top-level type in OpenAI's shape: %v", body)
	}
	if _, ok := inner["param"]; !ok || inner["code"] != code {
		t.Fatalf("not OpenAI's error shape (want code %q): %v", code, body)
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	_ = zw.Close()
	return buf.Bytes()
}

func TestRefusalsAnswerEachRoutesErrorShape(t *testing.T) {
	opts := api.Options{BodyLimit: 64 << 10, HeaderTimeout: time.Second, BodyGrace: 300 * time.Millisecond, MinBodyRate: 64 << 10}
	addr := serveForTest(t, opts)
	opts.BodyMemory = 20 << 10 // two 16 KiB reads do not fit
	tight := serveForTest(t, opts)
	const key = "Authorization: Bearer sk-shz-v1-0123456789abcdef0123456789abcdef\r\n"
	post := func(path, headers, body string) string {
		return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s",
			path, headers, len(body), body)
	}
	for _, tc := range []struct {
		name          string
		tight         bool // on the server with room for one body read
		request       func(path string) string
		status        int
		anthropicType string
		code          string
		retryAfter    string
	}{
		{"413 announced body over the limit", false, func(p string) string {
			return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: gw\r\n%sContent-Length: %d\r\n\r\n", p, key, 1<<20)
		}, 413, "request_too_large", "request_too_large", ""},
		{"415 unknown content coding", false, func(p string) string {
			return post(p, key+"Content-Encoding: zstd\r\n", "{}")
		}, 415, "invalid_request_error", "unsupported_content_encoding", ""},
		{"400 broken gzip", false, func(p string) string {
			return post(p, key+"Content-Encoding: gzip\r\n", "not gzip")
		}, 400, "invalid_request_error", "invalid_body", ""},
		{"413 gzip inflating past the limit", false, func(p string) string {
			return post(p, key+"Content-Encoding: gzip\r\n", string(gzipped(t, make([]byte, 1<<20))))
		}, 413, "request_too_large", "request_too_large", ""},
		{"408 body slower than the minimum rate", false, func(p string) string { // 16 KiB of 40, then nothing
			return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: gw\r\n%sContent-Length: %d\r\n\r\n%s", p, key, 40<<10, strings.Repeat(" ", 16<<10))
		}, 408, "invalid_request_error", "request_timeout", ""},
		{"408 small body never finished", false, func(p string) string { // fasthttp's own time-out
			return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: gw\r\n%sContent-Length: 1000\r\n\r\n{", p, key)
		}, 408, "invalid_request_error", "request_timeout", ""},
		{"503 too many large bodies", true, func(p string) string {
			return post(p, key, `{"x":"`+strings.Repeat("a", 20<<10)+`"}`)
		}, 503, "overloaded_error", "too_many_large_bodies", "1"},
		{"401 no key", false, func(p string) string { return post(p, "", "{}") }, 401, "authentication_error", "missing_api_key", ""},
		{"405 unknown method", false, func(p string) string {
			return "FOO " + p + " HTTP/1.1\r\nHost: gw\r\n\r\n"
		}, 405, "invalid_request_error", "method_not_allowed", ""},
		{"400 Content-Length not a number", false, func(p string) string { // fasthttp's parse error
			return "POST " + p + " HTTP/1.1\r\nHost: gw\r\nContent-Length: abc\r\n\r\n"
		}, 400, "invalid_request_error", "invalid_request", ""},
		{"431 headers too large", false, func(p string) string {
			return "POST " + p + " HTTP/1.1\r\nHost: gw\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n"
		}, 431, "invalid_request_error", "invalid_request", ""},
	} {
		for _, r := range shapeRoutes {
			t.Run(tc.name+" "+r.path, func(t *testing.T) {
				at := addr
				if tc.tight {
					at = tight
				}
				resp, body := raw(t, at, tc.request(r.path))
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %v", resp.StatusCode, tc.status, body)
				}
				checkShape(t, r.anthropic, body, tc.anthropicType, tc.code)
				if got := resp.Header.Get("Retry-After"); got != tc.retryAfter {
					t.Fatalf("Retry-After %q, want %q", got, tc.retryAfter)
				}
			})
		}
	}
}

func TestConnectionCapAnswersEachRoutesErrorShape(t *testing.T) {
	addr := serveForTest(t, api.Options{MaxConns: 1})
	held, err := net.Dial("tcp", addr) // an idle connection takes the one place
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, r := range shapeRoutes {
		t.Run(r.path, func(t *testing.T) {
			resp, body := raw(t, addr, "POST "+r.path+" HTTP/1.1\r\nHost: gw\r\nContent-Length: 2\r\n\r\n{}")
			if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" {
				t.Fatalf("%d Retry-After %q: %v", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
			checkShape(t, r.anthropic, body, "overloaded_error", "too_many_connections")
		})
	}
}

// fasthttp's refusal of headers it cannot read on a kept-alive connection
// answers in the shape of that request's route, not of an earlier one's.
func TestUnreadableHeadersOnAKeptAliveConnectionAnswerTheirRoutesShape(t *testing.T) {
	addr := serveForTest(t, api.Options{})
	const first = "POST %s HTTP/1.1\r\nHost: gw\r\nContent-Length: 2\r\n\r\n{}"
	unreadable := []struct {
		name, request string
		status        int
	}{
		{"Content-Length not a number", "POST %s HTTP/1.1\r\nHost: gw\r\nContent-Length: abc\r\n\r\n", 400},
		{"headers too large", "POST %s HTTP/1.1\r\nHost: gw\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n", 431},
	}
	for _, before := range shapeRoutes {
		for _, r := range shapeRoutes {
			for _, u := range unreadable {
				t.Run(before.path+" then "+u.name+" "+r.path, func(t *testing.T) {
					c, err := net.Dial("tcp", addr)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					br := bufio.NewReader(c)
					for i, step := range []struct {
						request   string
						status    int
						anthropic bool
						anthType  string
						code      string
					}{
						{fmt.Sprintf(first, before.path), 401, before.anthropic, "authentication_error", "missing_api_key"},
						{fmt.Sprintf(u.request, r.path), u.status, r.anthropic, "invalid_request_error", "invalid_request"},
					} {
						if _, err := io.WriteString(c, step.request); err != nil {
							t.Fatal(err)
						}
						resp, err := nethttp.ReadResponse(br, nil)
						if err != nil {
							t.Fatal(err)
						}
						var body map[string]any
						_ = json.NewDecoder(resp.Body).Decode(&body)
						_ = resp.Body.Close()
						if resp.StatusCode != step.status {
							t.Fatalf("request %d: status %d, want %d: %v", i+1, resp.StatusCode, step.status, body)
						}
						checkShape(t, step.anthropic, body, step.anthType, step.code)
					}
				})
			}
		}
	}
}
