package gigachat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
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
		return fmt.Sprintf("error (not an *Error): %v", err)
	}
	return fmt.Sprintf("error: status=%d code=%s param=%s upstream_fault=%v message=%q", e.Status, e.Code, golden.Param(e, "-"), e.UpstreamFault, e.Message)
}

// TestRequestGolden checks the translation of OpenAI request bodies into GigaChat's.
func TestRequestGolden(t *testing.T) {
	golden.Run(t, "request", ".json", func(t *testing.T, c golden.Case) []byte {
		req := golden.LoadRequest(t, c.Path, "public/model")
		var out bytes.Buffer
		uploads := 0
		upload := func(_ context.Context, img *image) (string, error) {
			uploads++
			fmt.Fprintf(&out, "upload %d: %s, %d bytes\n", uploads, img.mime, len(img.data))
			return fmt.Sprintf("file-%d", uploads), nil
		}
		body, err := buildBody(context.Background(), req, req.Stream, upload)
		if err != nil {
			out.WriteString(describeError(err) + "\n")
		} else {
			if !json.Valid(body) {
				t.Fatalf("built body is not valid JSON: %s", body)
			}
			out.Write(golden.Indent(t, body))
			out.WriteByte('\n')
		}
		return out.Bytes()
	})
}

// TestReplyGolden checks the translation of GigaChat replies into OpenAI choices.
func TestReplyGolden(t *testing.T) {
	golden.Run(t, "reply", ".json", func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		resp, err := decodeReply(raw, "gen-golden", nil)
		if err != nil {
			out.WriteString(describeError(err) + "\n")
		} else {
			u, _ := json.Marshal(resp.Usage)
			fmt.Fprintf(&out, "created=%d finish=%q usage=%s\n", resp.Created, resp.FinishReason, u)
			out.Write(golden.Indent(t, resp.Choices))
			out.WriteByte('\n')
		}
		return out.Bytes()
	})
}

// TestStreamGolden feeds recorded GigaChat streams through ChatStream over
// HTTP and checks the events it emits.
func TestStreamGolden(t *testing.T) {
	golden.Run(t, "stream", ".sse", func(t *testing.T, c golden.Case) []byte {
		raw, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/oauth") {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"access_token":"tok","expires_at":%d}`, time.Now().Add(time.Hour).UnixMilli())
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(raw)
		}))
		defer ts.Close()
		p, err := New(shlyuz.UpstreamConfig{Name: "golden", BaseURL: ts.URL + "/api/v1", AuthURL: ts.URL + "/oauth", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		defer p.CloseIdleConnections()
		p.now = func() time.Time { return time.Unix(1_768_996_176, 0) }

		st, err := p.ChatStream(context.Background(), golden.ChatRequest("public/model", "GigaChat", true, false))
		if err != nil {
			t.Fatal(err)
		}
		return golden.Events(t, "", st, func(err error) string { return describeError(err) + "\n" })
	})
}
