package yandex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
)

func describeError(err error) string {
	var e *shlyuz.Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("error (not an *Error) %v", err)
	}
	return fmt.Sprintf("error status=%d code=%s param=%s upstream_fault=%v retry_after=%s message=%q",
		e.Status, e.Code, golden.Param(e, "-"), e.UpstreamFault, e.RetryAfter, e.Message)
}

// TestRequestGolden checks the translation of a client's OpenAI body into
// the native body (or the refusal of it).
func TestRequestGolden(t *testing.T) {
	golden.Run(t, "request", ".json", func(t *testing.T, c golden.Case) []byte {
		req := golden.LoadRequest(t, c.Path, "yandex/yandexgpt")
		body, err := buildBody(req, "b1gfolder", req.Stream)
		var out []byte
		if err != nil {
			out = []byte(describeError(err) + "\n")
		} else {
			if !json.Valid(body) {
				t.Fatalf("built body is not valid JSON: %s", body)
			}
			out = append(golden.Indent(t, body), '\n')
		}
		return out
	})
}

// TestReplyGolden checks the translation of native non-streamed replies.
func TestReplyGolden(t *testing.T) {
	now := time.Unix(1760000000, 0)
	golden.Run(t, "reply", ".json", func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := decodeReply("golden", raw, "gen-golden", now)
		var out bytes.Buffer
		if err != nil {
			out.WriteString(describeError(err) + "\n")
		} else {
			if !json.Valid(resp.Choices) {
				t.Fatalf("choices are not valid JSON: %s", resp.Choices)
			}
			u, _ := json.Marshal(resp.Usage)
			fmt.Fprintf(&out, "created=%d finish=%q system_fingerprint=%q\nusage=%s\nchoices=%s\n",
				resp.Created, resp.FinishReason, resp.SystemFingerprint, u, resp.Choices)
		}
		return out.Bytes()
	})
}

// TestStreamGolden feeds native stream bodies through ChatStream over HTTP
// and checks the events it emits.
func TestStreamGolden(t *testing.T) {
	golden.Run(t, "stream", ".ndjson", func(t *testing.T, c golden.Case) []byte {
		url := golden.Serve(t, c.Path, "application/json")
		p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: url, FolderID: "b1gfolder", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		p.now = func() time.Time { return time.Unix(1760000000, 0) }
		defer p.CloseIdleConnections()

		clientUsage := strings.Contains(c.Name, "client_usage")
		st, err := p.ChatStream(context.Background(), golden.ChatRequest("yandex/yandexgpt", "yandexgpt", true, clientUsage))
		if err != nil {
			t.Fatal(err)
		}
		return golden.Events(t, fmt.Sprintf("client_usage=%v\n", clientUsage), st, func(err error) string { return describeError(err) + "\n" })
	})
}
