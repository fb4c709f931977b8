package actors_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/cluster"
	"github.com/shlyuz/shlyuz/persistence/sqlite"
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
	b.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return quiet }))
	journal := actors.NewJournal(store, 20*time.Millisecond, quiet, actors.JournalMetrics{})
	model := shlyuz.Model{ID: "bench/model", Name: "bench", InputModalities: []string{"text"}, OutputModalities: []string{"text"},
		USD: shlyuz.USDPrice{PromptPerMTok: shlyuz.MustDecimal("1"), CompletionPerMTok: shlyuz.MustDecimal("2")}}
	gw, err := actors.New(actors.Options{System: sys, Store: store, Journal: journal, Log: quiet,
		Upstreams: []*actors.Upstream{{Config: shlyuz.UpstreamConfig{Name: "instant", MaxConcurrent: 100000}, Provider: instant{}}},
		Routes:    []shlyuz.Route{{Match: "*", Upstreams: []string{"instant"}}},
		Models:    []shlyuz.Model{model}})
	if err != nil {
		b.Fatal(err)
	}
	dir, err := cluster.Start(sys, cluster.Config{}, gw.Kinds())
	if err != nil {
		b.Fatal(err)
	}
	if err := gw.Attach(ctx, dir); err != nil {
		b.Fatal(err)
	}
	if err := store.CreateAccount(ctx, shlyuz.Account{ID: "acc-bench", Email: "bench@example.com", CreatedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	if _, _, err := gw.TopUp("acc-bench", 1<<50, "seed"); err != nil {
		b.Fatal(err)
	}
	plain, hash := shlyuz.NewKeySecret()
	limit := shlyuz.Credits(1 << 50)
	if err := store.CreateKey(ctx, shlyuz.Key{ID: "key-bench", AccountID: "acc-bench", Hash: hash, Label: shlyuz.MaskKey(plain),
		Limit: &limit, LimitReset: shlyuz.ResetMonth, CreatedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		gw.Stop()
		dir.Stop()
		_ = journal.Close(context.Background())
		_ = store.Close()
	})
	return gw, hash
}

func benchCall(hash string, i int, stream bool) *actors.ChatCall {
	return &actors.ChatCall{GenerationID: fmt.Sprintf("gen-bench-%d", i), KeyHash: hash, Models: []string{"bench/model"},
		Prompt: shlyuz.PromptEstimate{Reserve: 20, Likely: 10}, AllowFallbacks: true, Stream: stream, Started: time.Now()}
}

// BenchmarkCheckKey is one actor round trip: the key actor's check.
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
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, _, err := gw.Complete(context.Background(), benchCall(hash, i, false)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompleteInstantParallel is the same from many goroutines on one key.
func BenchmarkCompleteInstantParallel(b *testing.B) {
	gw, hash := newBenchGateway(b)
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
