package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/golden"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// A content chunk as OpenAI sends it with include_usage.
var benchChunk = []byte(`{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_eb9dce56a8","choices":[{"index":0,"delta":{"content":" world"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"r4N7vQ2m"}`)

func BenchmarkStreamRewrite(b *testing.B) {
	for _, clientUsage := range []bool{true, false} {
		name := "keep-usage-null"
		if !clientUsage {
			name = "drop-usage"
		}
		b.Run(name, func(b *testing.B) {
			rw := newRewriter("gen-01HZX3Q7K8M9N0P1Q2R3S4T5V6", "openai/gpt-4o", clientUsage)
			b.ReportAllocs()
			b.SetBytes(int64(len(benchChunk)))
			for b.Loop() {
				res := rw.rewrite(benchChunk)
				if res.err != nil || res.tokens != 1 {
					b.Fatal(res.err)
				}
			}
		})
	}
	// For comparison: the same rewrite through a map of raw fields.
	b.Run("map-baseline", func(b *testing.B) {
		id, _ := json.Marshal("gen-01HZX3Q7K8M9N0P1Q2R3S4T5V6")
		model, _ := json.Marshal("openai/gpt-4o")
		b.ReportAllocs()
		b.SetBytes(int64(len(benchChunk)))
		for b.Loop() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(benchChunk, &m); err != nil {
				b.Fatal(err)
			}
			m["id"], m["model"] = id, model
			var choices []struct {
				Delta        struct{ Content string } `json:"delta"`
				FinishReason *string                  `json:"finish_reason"`
			}
			_ = json.Unmarshal(m["choices"], &choices)
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStreamNext measures SSE framing plus the rewrite, per event, from memory.
func BenchmarkStreamNext(b *testing.B) {
	const events = 1024
	var sse bytes.Buffer
	for i := 0; i < events; i++ {
		sse.WriteString("data: ")
		sse.Write(benchChunk)
		sse.WriteString("\n\n")
	}
	sse.WriteString("data: [DONE]\n\n")
	raw := sse.Bytes()
	b.ReportAllocs()
	b.SetBytes(int64(len(raw) / events))
	call := &upstream.Call{
		Config: &shlyuz.UpstreamConfig{Name: "bench", FirstByteTimeout: time.Hour, IdleTimeout: 1 << 40},
		Errors: errs,
		Send: func(context.Context) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(raw))}, nil
		},
	}
	n := 0
	var s shlyuz.ChatStream
	for b.Loop() {
		if s == nil {
			body, err := call.Open(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			s = newStream(body, newRewriter("gen-01HZX3Q7K8M9N0P1Q2R3S4T5V6", "openai/gpt-4o", true))
		}
		if _, err := s.Next(); err != nil {
			b.Fatal(err)
		}
		if n++; n == events {
			s.Close()
			s, n = nil, 0
		}
	}
}

func BenchmarkRequestBuild(b *testing.B) {
	req := golden.LoadRequest(b, "testdata/request/passthrough_unknown.json", "public/model")
	req.MaxTokens = 4096
	for _, stream := range []bool{false, true} {
		name := "chat"
		if stream {
			name = "stream"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				body, _ := buildBody(req, stream)
				if len(body) == 0 {
					b.Fatal("empty")
				}
			}
		})
	}
	b.Run("with-http-request", func(b *testing.B) {
		p := New(shlyuz.UpstreamConfig{BaseURL: "http://127.0.0.1:1/v1", APIKey: "sk-x"})
		b.ReportAllocs()
		for b.Loop() {
			body, _ := buildBody(req, true)
			if _, err := upstream.NewRequest(context.Background(), p.url, p.header, body, upstream.Accept(true)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkChatStreamLoopback is a whole streamed call against the fake over
// loopback HTTP: 16 chunks plus usage per op.
func BenchmarkChatStreamLoopback(b *testing.B) {
	f := fake.New(fake.Options{ReplyTokens: 16})
	ts := httptest.NewServer(f)
	defer ts.Close()
	defer f.Close()
	p := New(shlyuz.UpstreamConfig{Name: "fake", BaseURL: ts.URL + "/v1"})
	defer p.CloseIdleConnections()
	req := &shlyuz.UpstreamRequest{
		GenerationID: "gen-1", Model: "fake/model", UpstreamModel: "fake/model", Stream: true,
		Fields: map[string]json.RawMessage{"messages": json.RawMessage(`[{"role":"user","content":"hello there"}]`)},
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			st, err := p.ChatStream(context.Background(), req)
			if err != nil {
				b.Error(err)
				return
			}
			for {
				if _, err := st.Next(); err != nil {
					if err != io.EOF {
						b.Error(err)
					}
					break
				}
			}
			st.Close()
		}
	})
}
