package actors

import (
	"slices"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

func names(ups []*Upstream) []string {
	out := make([]string, len(ups))
	for i, u := range ups {
		out[i] = u.Config.Name
	}
	return out
}

// provider.sort orders by what was measured, keeping the route's order
// among equals and putting the unmeasured last.
func TestPreferUpstreamsSorts(t *testing.T) {
	up := func(name, mult string) *Upstream {
		u := &Upstream{Config: shlyuz.UpstreamConfig{Name: name}}
		if mult != "" {
			u.Config.PriceMultiplier = shlyuz.MustDecimal(mult)
		}
		return u
	}
	a, b, c, d := up("a", "2"), up("b", ""), up("c", "0.5"), up("d", "")
	route := []*Upstream{a, b, c, d}
	g := &Gateway{}
	g.stats.observeLatency(a, 30*time.Millisecond)
	g.stats.observeLatency(b, 10*time.Millisecond)
	g.stats.observeLatency(c, 20*time.Millisecond)
	g.stats.observeThroughput(a, 100, time.Second) // 100 tokens/s
	g.stats.observeThroughput(c, 300, time.Second) // 300
	g.stats.observeThroughput(d, 50, time.Second)  // 50
	for _, tc := range []struct {
		name string
		call ChatCall
		want []string
	}{
		{"none", ChatCall{}, []string{"a", "b", "c", "d"}},
		{"price", ChatCall{Sort: SortPrice}, []string{"c", "b", "d", "a"}},
		{"latency", ChatCall{Sort: SortLatency}, []string{"b", "c", "a", "d"}},
		{"throughput", ChatCall{Sort: SortThroughput}, []string{"c", "a", "d", "b"}},
		{"only and ignore", ChatCall{Only: []string{"a", "c", "d"}, Ignore: []string{"c"}}, []string{"a", "d"}},
		{"only, by price", ChatCall{Only: []string{"a", "d"}, Sort: SortPrice}, []string{"d", "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(g.preferUpstreams(route, &tc.call)); !slices.Equal(got, tc.want) {
				t.Fatalf("%v, want %v", got, tc.want)
			}
		})
	}
	// a moving average: a slow call moves the measure a fifth of the way
	g.stats.observeLatency(b, 60*time.Millisecond)
	if v := g.stats.of("b").latencyUS.Load(); v != 20_000 {
		t.Fatalf("latency %d µs, want 20000", v)
	}
}
