package upstream

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shlyuz/shlyuz"
)

func TestClip(t *testing.T) {
	if got := Clip("  short  "); got != "short" {
		t.Errorf("Clip = %q", got)
	}
	long := strings.Repeat("a", MaxMessage-1) + "жж"
	got := Clip(long)
	if got != strings.Repeat("a", MaxMessage-1)+"…" {
		t.Errorf("Clip cut inside a rune or at the wrong place: %q", got[len(got)-8:])
	}
	cyrillic := Clip(strings.Repeat("я", MaxMessage))
	if len(cyrillic) > MaxMessage+len("…") || !strings.HasSuffix(cyrillic, "…") || !utf8.ValidString(cyrillic) {
		t.Errorf("Clip of two-byte runes: %d bytes", len(cyrillic))
	}
}

func TestIsIdentifier(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "invalid_request_error": true, "API_KEY-1.x": true,
		"a b": false, "quote\"": false, strings.Repeat("x", 65): false,
	} {
		if IsIdentifier(s) != want {
			t.Errorf("IsIdentifier(%q) = %v", s, !want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	for _, tc := range []struct {
		h          http.Header
		want, ms   time.Duration
		withDef    time.Duration // RetryAfterOr with a default of 1s
		definition string
	}{
		{h(), 0, 0, time.Second, "none"},
		{h("Retry-After", "2"), 2 * time.Second, 2 * time.Second, 2 * time.Second, "seconds"},
		{h("Retry-After", "1.5"), 1500 * time.Millisecond, 1500 * time.Millisecond, 1500 * time.Millisecond, "fractional seconds"},
		{h("Retry-After", "0"), 0, 0, time.Second, "zero"},
		{h("Retry-After", "-3"), 0, 0, time.Second, "negative"},
		{h("Retry-After", "soon"), 0, 0, time.Second, "unreadable"},
		{h("Retry-After", "Inf"), 0, 0, time.Second, "infinite"},
		{h("Retry-After", "1e30"), 0, 0, time.Second, "beyond a Duration"},
		{h("Retry-After", "86401"), 0, 0, time.Second, "over a day"},
		{h("Retry-After", "86400"), 24 * time.Hour, 24 * time.Hour, 24 * time.Hour, "a day"},
		{h("Retry-After-Ms", "1e300", "Retry-After", "2"), 2 * time.Second, 2 * time.Second, 2 * time.Second, "ms beyond a Duration"},
		{h("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat)), 30 * time.Second, 30 * time.Second, 30 * time.Second, "date"},
		{h("Retry-After", now.Add(-time.Minute).Format(http.TimeFormat)), 0, 0, time.Second, "past date"},
		{h("Retry-After-Ms", "250", "Retry-After", "2"), 2 * time.Second, 250 * time.Millisecond, 2 * time.Second, "ms first"},
		{h("Retry-After-Ms", "0", "Retry-After", "2"), 2 * time.Second, 2 * time.Second, 2 * time.Second, "zero ms"},
	} {
		if got := RetryAfter(tc.h, now); got != tc.want {
			t.Errorf("%s: RetryAfter = %v, want %v", tc.definition, got, tc.want)
		}
		if got := RetryAfterMs(tc.h, now); got != tc.ms {
			t.Errorf("%s: RetryAfterMs = %v, want %v", tc.definition, got, tc.ms)
		}
		if got := RetryAfterOr(tc.h, now, time.Second); got != tc.withDef {
			t.Errorf("%s: RetryAfterOr = %v, want %v", tc.definition, got, tc.withDef)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestTransport(t *testing.T) {
	x := NewErrors("test")
	background := context.Background()
	cancelled, cancel := context.WithCancel(background)
	cancel()
	refused := errors.New("connection refused")

	if err := x.Transport("up", cancelled, nil, refused, false); err != context.Canceled {
		t.Errorf("a cancelled caller: %v, want context.Canceled", err)
	}
	check := func(err error, status int, msg, cause string) {
		t.Helper()
		var e *shlyuz.Error
		if !errors.As(err, &e) || e.Status != status || e.Message != msg || !e.UpstreamFault || e.Cause.Error() != cause {
			t.Errorf("got %v (cause %v), want %d %q cause %q", err, e.Cause, status, msg, cause)
		}
	}
	check(x.Transport("up", background, x.Idle, refused, true), 504, "The upstream stopped sending the stream.", "upstream up: idle timeout: connection refused")
	check(x.Transport("up", background, x.FirstByte, refused, false), 504, "The upstream did not answer in time.", "upstream up: connection refused")
	check(x.Transport("up", background, nil, fmt.Errorf("read: %w", timeoutErr{}), true), 504, "The upstream did not answer in time.", "upstream up: read: i/o timeout")
	check(x.Transport("up", background, nil, context.DeadlineExceeded, false), 504, "The upstream did not answer in time.", "upstream up: context deadline exceeded")
	check(x.Transport("up", background, nil, refused, false), 502, "The upstream is unreachable.", "upstream up: connection refused")
	check(x.Transport("up", background, nil, refused, true), 502, "The upstream broke off its reply.", "upstream up: connection refused")

	x.Label = "giga"
	x.Classify = func(err error) *shlyuz.Error {
		if err == refused {
			return shlyuz.ErrUpstream("Refused.")
		}
		return nil
	}
	check(x.Transport("up", background, nil, refused, false), 502, "Refused.", "giga up: connection refused")
	check(x.Transport("up", background, nil, io.ErrUnexpectedEOF, true), 502, "The upstream broke off its reply.", "giga up: unexpected EOF")

	own := shlyuz.ErrInvalidValue("messages", "No.")
	if err := x.Call("up", background, nil, fmt.Errorf("build: %w", own), false); err != own {
		t.Errorf("Call = %v, want the *Error as it is", err)
	}
	if !errors.Is(x.Closed, context.Canceled) || x.Closed.Error() != "test: stream closed: context canceled" {
		t.Errorf("Closed = %v", x.Closed)
	}
}

func TestNewClient(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer ts.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	writePEM(t, ca, ts.Certificate())

	c, err := NewClient(ca)
	if err != nil {
		t.Fatal(err)
	}
	tr := c.Transport.(*FreshRetry).Transport
	if tr.TLSClientConfig == nil || tr.TLSClientConfig.MinVersion != tls.VersionTLS12 {
		t.Errorf("TLS config %+v", tr.TLSClientConfig)
	}
	resp, err := c.Get(ts.URL)
	if err != nil {
		t.Fatalf("the CA file's certificate is not trusted: %v", err)
	}
	resp.Body.Close()

	plain, err := NewClient("")
	if tc := plain.Transport.(*FreshRetry).Transport.TLSClientConfig; err != nil || tc != nil && tc.RootCAs != nil {
		t.Errorf("NewClient(\"\") = %v, %v", plain, err)
	}
	if _, err := NewClient(filepath.Join(dir, "missing.pem")); err == nil || !strings.HasPrefix(err.Error(), "ca_file: ") {
		t.Errorf("a missing file: %v", err)
	}
	junk := filepath.Join(dir, "junk.pem")
	os.WriteFile(junk, []byte("not a certificate"), 0o600)
	if _, err := NewClient(junk); err == nil || err.Error() != "ca_file "+junk+" holds no PEM certificate" {
		t.Errorf("a file without certificates: %v", err)
	}
}

func writePEM(t *testing.T, path string, c *x509.Certificate) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// FuzzJSONText: a string literal reads as encoding/json reads it, whatever
// it holds (escapes, surrogate pairs, lone halves, invalid UTF-8).
func FuzzJSONText(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\t\"q\" \\ \/ \u0041\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud800 lone"`, "\"bad \xff utf-8\"",
		`"\u0000 nul"`, `"unterminated`, `"x" trailing`, `""`, `"\u2028\u2029"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		var want string
		if json.Unmarshal(b, &want) != nil {
			want = ""
		}
		if got := JSONText(b); got != want {
			t.Fatalf("JSONText(%q) = %q, encoding/json reads %q", b, got, want)
		}
	})
}
