// Package metrics holds the gateway's Prometheus collectors (client_golang):
// HTTP requests by route and status, generations by model, upstream and
// status, latency histograms (total, upstream, added by the gateway), tokens
// and credits, breaker states, requests in flight and credits reserved, and
// the journal's lag and batch sizes, calls whose upstream reported more
// than was reserved, upstream attempts by outcome, and the last
// reconciliation of balances against the ledger. Handler exposes them for
// /metrics; deploy/ holds the dashboard and alert rules that read them.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/sony/gobreaker/v2"
)

// Metrics is the gateway's registry and its collectors.
type Metrics struct {
	reg          *prometheus.Registry
	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	generations  *prometheus.CounterVec
	total        *prometheus.HistogramVec
	upstream     *prometheus.HistogramVec
	added        prometheus.Histogram
	tokens       *prometheus.CounterVec
	credits      *prometheus.CounterVec
	breaker      *prometheus.GaugeVec
	journalBatch prometheus.Histogram
	journalWrite prometheus.Histogram
	journalLag   prometheus.Histogram
	journalFail  prometheus.Counter
	overReserved *prometheus.CounterVec
	attempts     *prometheus.CounterVec
	mismatched   prometheus.Gauge
	reconciled   prometheus.Gauge
	series       seriesCache // the series requests touch, resolved once (series.go)
}

// latencyBuckets run from 50µs (the gateway's own cost) to two minutes (a long generation).
var latencyBuckets = []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

// New registers every collector, with the Go runtime and process collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		reg: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shlyuz_http_requests_total",
			Help: "HTTP requests by route and status."}, []string{"route", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "shlyuz_http_request_duration_seconds",
			Help: "Time to the handler's answer by route (a stream's headers, not its end).", Buckets: latencyBuckets}, []string{"route"}),
		generations: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shlyuz_generations_total",
			Help: "Model calls by model, serving upstream, status and streaming."}, []string{"model", "upstream", "status", "stream"}),
		total: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "shlyuz_generation_duration_seconds",
			Help: "Whole model calls, from request to settlement.", Buckets: latencyBuckets}, []string{"upstream", "stream"}),
		upstream: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "shlyuz_upstream_duration_seconds",
			Help: "Time spent in upstream calls (to the first byte for streams).", Buckets: latencyBuckets}, []string{"upstream", "stream"}),
		added: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "shlyuz_added_latency_seconds",
			Help: "What the gateway adds to a non-streamed call: total minus upstream.", Buckets: latencyBuckets}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shlyuz_tokens_total",
			Help: "Tokens billed by model and kind (prompt, completion)."}, []string{"model", "kind"}),
		credits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shlyuz_credits_charged_total",
			Help: "Credits debited by model."}, []string{"model"}),
		breaker: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "shlyuz_breaker_state",
			Help: "Circuit breaker state by upstream: 0 closed, 1 half-open, 2 open."}, []string{"upstream"}),
		journalBatch: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "shlyuz_journal_batch_size",
			Help: "Ledger entries and generation records per group commit.", Buckets: prometheus.ExponentialBuckets(1, 2, 14)}),
		journalWrite: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "shlyuz_journal_log_write_records",
			Help: "Records per write to the write-ahead log (settlements that shared one write(2)).", Buckets: prometheus.ExponentialBuckets(1, 2, 10)}),
		journalLag: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "shlyuz_journal_lag_seconds",
			Help: "From a generation's settlement to its commit.", Buckets: latencyBuckets}),
		journalFail: prometheus.NewCounter(prometheus.CounterOpts{Name: "shlyuz_journal_commit_failures_total",
			Help: "Group commits that failed and were retried."}),
		overReserved: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shlyuz_over_reserved_total",
			Help: "Model calls whose upstream reported more than was reserved (charged the reservation), by model and upstream."}, []string{"model", "upstream"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "shlyuz_upstream_attempts_total",
			Help: "Upstream attempts of model calls by upstream and outcome (ok, or error: refused, failed or timed out)."}, []string{"upstream", "outcome"}),
		mismatched: prometheus.NewGauge(prometheus.GaugeOpts{Name: "shlyuz_reconcile_mismatched_accounts",
			Help: "Accounts whose balance differed from the sum of their ledger entries at the last reconciliation (should be 0)."}),
		reconciled: prometheus.NewGauge(prometheus.GaugeOpts{Name: "shlyuz_reconcile_last_run_timestamp_seconds",
			Help: "When the last reconciliation of balances against the ledger finished (Unix seconds; 0: never)."}),
	}
	reg.MustRegister(m.httpRequests, m.httpDuration, m.generations, m.total, m.upstream, m.added, m.tokens,
		m.credits, m.breaker, m.journalBatch, m.journalWrite, m.journalLag, m.journalFail, m.overReserved,
		m.attempts, m.mismatched, m.reconciled)
	return m
}

// Gauges registers gauges read at scrape time: requests in flight and credits reserved.
func (m *Metrics) Gauges(inFlight, reserved func() float64) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "shlyuz_requests_in_flight", Help: "Model calls between reservation and settlement."}, inFlight),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "shlyuz_reserved_credits", Help: "Credits held by model calls in flight."}, reserved),
	)
}

// Handler serves the registry in Prometheus's text format.
func (m *Metrics) Handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

// HTTP records one HTTP request.
func (m *Metrics) HTTP(route string, status int, d time.Duration) {
	m.series.requests.get(httpKey{route, status}, func() prometheus.Counter {
		return m.httpRequests.WithLabelValues(route, strconv.Itoa(status))
	}).Inc()
	m.series.durations.get(route, func() prometheus.Observer { return m.httpDuration.WithLabelValues(route) }).Observe(d.Seconds())
}

// Generation records one settled or failed model call.
func (m *Metrics) Generation(g *shlyuz.Generation, total, upstream time.Duration) {
	c := &m.series
	up := streamKey{g.Upstream, g.Streamed}
	c.gens.get(genKey{g.Model, g.Upstream, g.Status, g.Streamed}, func() prometheus.Counter {
		return m.generations.WithLabelValues(g.Model, g.Upstream, g.Status, streamLabel(g.Streamed))
	}).Inc()
	c.totals.get(up, func() prometheus.Observer {
		return m.total.WithLabelValues(g.Upstream, streamLabel(g.Streamed))
	}).Observe(total.Seconds())
	if upstream > 0 {
		c.upstreams.get(up, func() prometheus.Observer {
			return m.upstream.WithLabelValues(g.Upstream, streamLabel(g.Streamed))
		}).Observe(upstream.Seconds())
		if !g.Streamed && g.Status == shlyuz.GenerationCompleted {
			m.added.Observe(max(0, total-upstream).Seconds())
		}
	}
	if g.PromptTokens > 0 || g.CompletionTokens > 0 {
		c.tokens.get(pairKey{g.Model, "prompt"}, func() prometheus.Counter {
			return m.tokens.WithLabelValues(g.Model, "prompt")
		}).Add(float64(g.PromptTokens))
		c.tokens.get(pairKey{g.Model, "completion"}, func() prometheus.Counter {
			return m.tokens.WithLabelValues(g.Model, "completion")
		}).Add(float64(g.CompletionTokens))
	}
	if g.Credits > 0 {
		c.credits.get(g.Model, func() prometheus.Counter { return m.credits.WithLabelValues(g.Model) }).Add(float64(g.Credits))
	}
	if g.OverReserved {
		m.overReserved.WithLabelValues(g.Model, g.Upstream).Inc()
	}
	for _, a := range g.Attempts {
		outcome := "ok"
		if a.Error != "" || a.Status >= 400 {
			outcome = "error"
		}
		m.series.attempts.get(pairKey{a.Upstream, outcome}, func() prometheus.Counter {
			return m.attempts.WithLabelValues(a.Upstream, outcome)
		}).Inc()
	}
}

// Upstreams starts every upstream's breaker gauge at closed and its attempt
// counters at zero, so dashboards and alerts see each upstream before its
// first call or breaker change.
func (m *Metrics) Upstreams(names []string) {
	for _, n := range names {
		m.breaker.WithLabelValues(n).Set(float64(gobreaker.StateClosed))
		m.attempts.WithLabelValues(n, "ok")
		m.attempts.WithLabelValues(n, "error")
	}
}

// Reconciled records a reconciliation of balances against the ledger: how
// many accounts disagreed, and when.
func (m *Metrics) Reconciled(mismatched int, at time.Time) {
	m.mismatched.Set(float64(mismatched))
	m.reconciled.Set(float64(at.Unix()))
}

// Breaker records an upstream breaker's new state.
func (m *Metrics) Breaker(upstream string, s gobreaker.State) {
	m.breaker.WithLabelValues(upstream).Set(float64(s))
}

// JournalBatch, JournalWrite, JournalLag and JournalFailed record the
// journal's commits and its write-ahead log's writes.
func (m *Metrics) JournalBatch(n int)         { m.journalBatch.Observe(float64(n)) }
func (m *Metrics) JournalWrite(n int)         { m.journalWrite.Observe(float64(n)) }
func (m *Metrics) JournalLag(d time.Duration) { m.journalLag.Observe(d.Seconds()) }
func (m *Metrics) JournalFailed()             { m.journalFail.Inc() }
