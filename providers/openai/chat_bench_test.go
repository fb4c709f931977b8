package openai

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// BenchmarkChatLoopback is a whole non-streamed call against the fake over
// loopback HTTP. "deadline" is how the gateway calls Chat (a context with a
// deadline: the fasthttp client); "background" has no deadline (net/http).
func BenchmarkChatLoopback(b *testing.B) {
	f := fake.New(fake.Options{ReplyTokens: 16})
	ts := httptest.NewServer(f)
	defer ts.Close()
	defer f.Close()
	p := New(shlyuz.UpstreamConfig{Name: "fake", BaseURL: ts.URL + "/v1"})
	defer p.CloseIdleConnections()
	req := &shlyuz.UpstreamRequest{
		GenerationID: "gen-1", Model: "fake/model", UpstreamModel: "fake/model",
		Fields: map[string]json.RawMessage{"messages": json.RawMessage(`[{"role":"user","content":"hello there"}]`)},
	}
	for _, bc := range []struct {
		name     string
		deadline bool
	}{{"background", false}, {"deadline", true}} {
		for _, par := range []bool{false, true} {
			name := bc.name + "/serial"
			if par {
				name = bc.name + "/parallel"
			}
			b.Run(name, func(b *testing.B) {
				call := func() {
					ctx := context.Background()
					if bc.deadline {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, time.Minute)
						defer cancel()
					}
					if _, err := p.Chat(ctx, req); err != nil {
						b.Error(err)
					}
				}
				b.ReportAllocs()
				if !par {
					for b.Loop() {
						call()
					}
					return
				}
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						call()
					}
				})
			})
		}
	}
}
