package metrics

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// The series a request touches are resolved once per set of label values
// and kept: WithLabelValues hashes and checks its labels on every call, and
// a request would otherwise pay it for every collector it counts in. A
// series is still made on its first use only, as WithLabelValues makes it;
// the label sets are those the registry keeps, so the caches grow no
// further than it does.

// resolved is one collector's series by their label values.
type resolved[K comparable, V any] struct{ m sync.Map }

func (r *resolved[K, V]) get(k K, make func() V) V {
	if v, ok := r.m.Load(k); ok {
		return v.(V)
	}
	v, _ := r.m.LoadOrStore(k, make())
	return v.(V)
}

type (
	httpKey struct {
		route  string
		status int
	}
	genKey struct {
		model, upstream, status string
		streamed                bool
	}
	streamKey struct {
		upstream string
		streamed bool
	}
	pairKey struct{ a, b string }
)

// seriesCache holds the resolved series of the collectors a request counts in.
type seriesCache struct {
	requests  resolved[httpKey, prometheus.Counter]
	durations resolved[string, prometheus.Observer]
	gens      resolved[genKey, prometheus.Counter]
	totals    resolved[streamKey, prometheus.Observer]
	upstreams resolved[streamKey, prometheus.Observer]
	tokens    resolved[pairKey, prometheus.Counter]
	credits   resolved[string, prometheus.Counter]
	attempts  resolved[pairKey, prometheus.Counter]
}

func streamLabel(streamed bool) string { return strconv.FormatBool(streamed) }
