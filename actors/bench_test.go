package actors_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/tokens"
)

// instant is an upstream that answers at once, in memory: the benchmarks
// measure the gateway's own work, not HTTP.
type instant struct{}

var instantChoices = json.RawMessage(`[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]`)

func (instant) Chat(context.Context, *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	return &shlyuz.ChatResponse{Choices: instantChoices, Usage: shlyuz.Usage{PromptTokens: 10, CompletionTokens: 5}, FinishReason: "stop"}, nil
}

func (instant) ChatStream(context.Context, *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	return &instantStream{}, nil
}

type instantStream struct{ n int }

func (s *instantStream) Next() (shlyuz.StreamEvent, error) {
	s.n++
	if s.n > 1 {
		return shlyuz.StreamEvent{}, io.EOF
	}
	return shlyuz.StreamEvent{Data: []byte(`{}`), Usage: &shlyuz.Usage{PromptTokens: 10, CompletionTokens: 5}}, nil
}

func (s *instantStream) Close() error { return nil }

// newBenchGateway is a one-node gateway on a SQLite file with an account,
// a capped key and plenty of credits.
func newBenchGateway(b *testing.B) (*actors.Gateway, string) {
	gw, hash := newTestGateway(b, testUpstream{name: "instant", provider: instant{}})
	return gw, hash
}

func benchCall(hash string, i int, stream bool) *actors.ChatCall {
	return &actors.ChatCall{GenerationID: fmt.Sprintf("gen-bench-%d", i), KeyHash: hash, Models: []string{"bench/model"},
		Prompt: tokens.PromptEstimate{Reserve: 20, Likely: 10}, AllowFallbacks: true, Stream: stream, Started: time.Now()}
}

// BenchmarkCheckKey is one actor round trip: the key's check at its account's actor.
func BenchmarkCheckKey(b *testing.B) {
	gw, hash := newBenchGateway(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := gw.CheckKey(hash); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompleteInstant is a whole non-streamed request's actor work:
// reserve at the key and the account, a provider slot, the (instant) call,
// settle at both, journal the entry.
func BenchmarkCompleteInstant(b *testing.B) {
	gw, hash := newBenchGateway(b)
	completeInTurn(b, gw, hash)
}

// completeInTurn makes b.N non-streamed calls on the key, one after another.
func completeInTurn(b *testing.B, gw *actors.Gateway, hash string) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, _, err := gw.Complete(context.Background(), benchCall(hash, i, false)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompleteInstantDurable is BenchmarkCompleteInstant with durable
// settlement, the default: each call returns once its charge is committed,
// one commit a call.
func BenchmarkCompleteInstantDurable(b *testing.B) {
	tg := startGateway(b, testActorIdle, 0, true, testUpstream{name: "instant", provider: instant{}})
	hash := tg.account("acc-bench", 1<<49, 1<<49)
	completeInTurn(b, tg.Gateway, hash)
}

// BenchmarkCompleteInstantDurableLogged is BenchmarkCompleteInstantDurable
// with the write-ahead log serve keeps beside SQLite: each call returns once
// its charge is appended there, and the store commits at the tick.
func BenchmarkCompleteInstantDurableLogged(b *testing.B) {
	tg := startGatewayLogged(b, testActorIdle, 0, true, true, testUpstream{name: "instant", provider: instant{}})
	hash := tg.account("acc-bench", 1<<49, 1<<49)
	completeInTurn(b, tg.Gateway, hash)
}

// BenchmarkCompleteInstantParallel is the same from many goroutines on one key.
func BenchmarkCompleteInstantParallel(b *testing.B) {
	gw, hash := newBenchGateway(b)
	completeInParallel(b, gw, hash)
}

// completeInParallel makes b.N non-streamed calls on the key from
// RunParallel's goroutines.
func completeInParallel(b *testing.B, gw *actors.Gateway, hash string) {
	b.ReportAllocs()
	var n int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(atomicAdd(&n))
			if _, _, err := gw.Complete(context.Background(), benchCall(hash, i, false)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkCompleteInstantParallelDurable is BenchmarkCompleteInstantDurable
// from many goroutines (-cpu 2 and SetParallelism(32): 64 in flight) on one
// key: it reports how many calls a commit carried.
func BenchmarkCompleteInstantParallelDurable(b *testing.B) {
	tg := startGateway(b, testActorIdle, 0, true, testUpstream{name: "instant", provider: instant{}})
	hash := tg.account("acc-bench", 1<<49, 1<<49)
	b.SetParallelism(32)
	before := tg.commits.Load()
	completeInParallel(b, tg.Gateway, hash)
	b.StopTimer()
	if c := tg.commits.Load() - before; c > 0 {
		b.ReportMetric(float64(b.N)/float64(c), "calls/commit")
	}
}

// BenchmarkCompleteInstantParallelLogged is
// BenchmarkCompleteInstantParallelDurable with the write-ahead log serve
// keeps beside SQLite: the appends of calls settled together share a write.
func BenchmarkCompleteInstantParallelLogged(b *testing.B) {
	tg := startGatewayLogged(b, testActorIdle, 0, true, true, testUpstream{name: "instant", provider: instant{}})
	hash := tg.account("acc-bench", 1<<49, 1<<49)
	b.SetParallelism(32)
	completeInParallel(b, tg.Gateway, hash)
}

// BenchmarkStreamInstant is a streamed request's actor work: open, one event, finish.
func BenchmarkStreamInstant(b *testing.B) {
	gw, hash := newBenchGateway(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		s, err := gw.OpenStream(context.Background(), benchCall(hash, i, true))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := s.Next(); err != nil {
				break
			}
		}
		s.Finish(nil)
	}
}
