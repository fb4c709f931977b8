package metrics

import (
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// BenchmarkRequestSeries is what one request counts: its HTTP route and
// status, its generation and its attempt.
func BenchmarkRequestSeries(b *testing.B) {
	m := New()
	g := &shlyuz.Generation{Model: "openai/gpt", Upstream: "openai", Status: shlyuz.GenerationCompleted, PromptTokens: 10, CompletionTokens: 5,
		Credits: 40, Attempts: []shlyuz.Attempt{{Upstream: "openai", Status: 200}}}
	b.ReportAllocs()
	for b.Loop() {
		m.HTTP("/api/v1/chat/completions", 200, time.Millisecond)
		m.Generation(g, 2*time.Millisecond, time.Millisecond)
	}
}
