package actors

import (
	"context"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

// TestTracingOffAllocatesNothing: with tracing off (the global no-op tracer
// provider, no span in the request's context) a call's tracing hooks cost no
// allocation on the hot path.
func TestTracingOffAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	u := &Upstream{Config: shlyuz.UpstreamConfig{Name: "up", Protocol: "openai"}}
	req := &shlyuz.UpstreamRequest{Model: "m/x", UpstreamModel: "x", GenerationID: "gen-1"}
	allocs := testing.AllocsPerRun(1000, func() {
		cl := call{}
		cl.traceFrom(ctx)
		if s := cl.span("shlyuz.reserve", 0); s != nil {
			t.Fatal("a span without a recording parent")
		}
		if _, s := cl.attemptSpan(u, req); s != nil {
			t.Fatal("an attempt span without a recording parent")
		}
		cl.endAttempt(shlyuz.Usage{}, "stop")
	})
	if allocs != 0 {
		t.Fatalf("%v allocations a call with tracing off", allocs)
	}
}
