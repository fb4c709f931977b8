package main

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"time"
)

// percentile is the nearest-rank percentile p (0..100) of sorted samples:
// the smallest sample with at least p% of the samples at or below it. It is
// 0 for no samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p/100*float64(n) - 1e-9)) // 99.9% of 1000 is 999, not 999.0000000000001

	rank = max(1, min(n, rank))
	return sorted[rank-1]
}

// ms is d in milliseconds, rounded to 100 ns.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/1e2) / 1e4
}

// round4 rounds x to four decimals (100 ns when x is in milliseconds).
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// ratio is a ÷ b to four places, 0 when b is not positive.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return round4(a / b)
}

// Summary is the distribution of the latencies of the successful (HTTP 200)
// requests of one set, in milliseconds, and what failed.
type Summary struct {
	Count      int            `json:"count"`
	Errors     int            `json:"errors"`
	ErrorKinds map[string]int `json:"error_kinds,omitempty"`
	MeanMs     float64        `json:"mean_ms"`
	MinMs      float64        `json:"min_ms"`
	P50Ms      float64        `json:"p50_ms"`
	P90Ms      float64        `json:"p90_ms"`
	P99Ms      float64        `json:"p99_ms"`
	P999Ms     float64        `json:"p99_9_ms"`
	MaxMs      float64        `json:"max_ms"`
}

// summarize sorts samples in place and describes them.
func summarize(samples []time.Duration, errs errCounter) Summary {
	slices.Sort(samples)
	s := Summary{Count: len(samples), Errors: errs.total(), ErrorKinds: errs.kinds()}
	if len(samples) == 0 {
		return s
	}
	var sum time.Duration
	for _, d := range samples {
		sum += d
	}
	s.MeanMs = ms(sum / time.Duration(len(samples)))
	s.MinMs = ms(samples[0])
	s.P50Ms = ms(percentile(samples, 50))
	s.P90Ms = ms(percentile(samples, 90))
	s.P99Ms = ms(percentile(samples, 99))
	s.P999Ms = ms(percentile(samples, 99.9))
	s.MaxMs = ms(samples[len(samples)-1])
	return s
}

// Added is what the gateway adds: each percentile of the gateway's
// distribution minus the same percentile of the direct one.
type Added struct {
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p99_9_ms"`
}

func added(direct, gw Summary) Added {
	return Added{
		MeanMs: round4(gw.MeanMs - direct.MeanMs),
		P50Ms:  round4(gw.P50Ms - direct.P50Ms),
		P90Ms:  round4(gw.P90Ms - direct.P90Ms),
		P99Ms:  round4(gw.P99Ms - direct.P99Ms),
		P999Ms: round4(gw.P999Ms - direct.P999Ms),
	}
}

// maxErrorKinds bounds the distinct error kinds kept; the rest count as "other".
const maxErrorKinds = 16

// errCounter counts failed requests by kind ("HTTP 402", "connection refused").
type errCounter map[string]int

func (e *errCounter) add(kind string) {
	if *e == nil {
		*e = errCounter{}
	}
	if _, ok := (*e)[kind]; !ok && len(*e) >= maxErrorKinds {
		kind = "other"
	}
	(*e)[kind]++
}

func (e *errCounter) merge(o errCounter) {
	for k, n := range o {
		for range n {
			e.add(k)
		}
	}
}

func (e errCounter) total() int {
	n := 0
	for _, v := range e {
		n += v
	}
	return n
}

// kinds is a copy, nil when nothing failed.
func (e errCounter) kinds() map[string]int {
	if len(e) == 0 {
		return nil
	}
	out := make(map[string]int, len(e))
	for k, v := range e {
		out[k] = v
	}
	return out
}

// describeErrors is "HTTP 402 ×3, connection refused ×1", most frequent first.
func describeErrors(kinds map[string]int) string {
	type kv struct {
		k string
		n int
	}
	var all []kv
	for k, n := range kinds {
		all = append(all, kv{k, n})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].k < all[j].k
	})
	out := ""
	for i, e := range all {
		if i > 0 {
			out += ", "
		}
		out += e.k + " ×" + strconv.Itoa(e.n)
	}
	return out
}
