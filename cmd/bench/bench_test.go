package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func durations(ms ...float64) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Millisecond))
	}
	return out
}

func oneToN(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	cases := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"single p0", durations(7), 0, 7 * time.Millisecond},
		{"single p99.9", durations(7), 99.9, 7 * time.Millisecond},
		{"two p50 is the lower", durations(1, 2), 50, time.Millisecond},
		{"two p51 is the upper", durations(1, 2), 51, 2 * time.Millisecond},
		{"1..100 p50", oneToN(100), 50, 50 * time.Millisecond},
		{"1..100 p99", oneToN(100), 99, 99 * time.Millisecond},
		{"1..100 p99.9", oneToN(100), 99.9, 100 * time.Millisecond},
		{"1..100 p100", oneToN(100), 100, 100 * time.Millisecond},
		{"1..1000 p99.9", oneToN(1000), 99.9, 999 * time.Millisecond},
		{"1..2000 p99.9", oneToN(2000), 99.9, 1998 * time.Millisecond},
		{"1..10 p0 is the minimum", oneToN(10), 0, time.Millisecond},
		{"p above 100 is the maximum", oneToN(10), 150, 10 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := percentile(c.sorted, c.p); got != c.want {
				t.Fatalf("percentile(%v) = %v, want %v", c.p, got, c.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	cases := []struct {
		name    string
		samples []time.Duration
		errs    errCounter
		want    Summary
	}{
		{"nothing", nil, nil, Summary{}},
		{"errors only", nil, errCounter{"HTTP 402": 2}, Summary{Errors: 2, ErrorKinds: map[string]int{"HTTP 402": 2}}},
		{"unsorted input", durations(3, 1, 2), nil, Summary{Count: 3, MeanMs: 2, MinMs: 1, P50Ms: 2, P90Ms: 3, P99Ms: 3, P999Ms: 3, MaxMs: 3}},
		{"sub-millisecond rounding", durations(0.12345, 0.12345), nil, Summary{Count: 2, MeanMs: 0.1235, MinMs: 0.1235, P50Ms: 0.1235, P90Ms: 0.1235, P99Ms: 0.1235, P999Ms: 0.1235, MaxMs: 0.1235}},
		{"1..100", oneToN(100), errCounter{"transport: connection refused": 1}, Summary{Count: 100, Errors: 1,
			ErrorKinds: map[string]int{"transport: connection refused": 1}, MeanMs: 50.5, MinMs: 1, P50Ms: 50, P90Ms: 90, P99Ms: 99, P999Ms: 100, MaxMs: 100}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := summarize(c.samples, c.errs)
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(c.want)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("got  %s\nwant %s", gj, wj)
			}
		})
	}
}

func TestAdded(t *testing.T) {
	cases := []struct {
		name        string
		direct, gw  Summary
		want        Added
		description string
	}{
		{"gateway slower", Summary{P50Ms: 0.25, P90Ms: 0.4, P99Ms: 0.7, P999Ms: 1, MeanMs: 0.3}, Summary{P50Ms: 0.75, P90Ms: 1, P99Ms: 2.5, P999Ms: 4, MeanMs: 0.9},
			Added{P50Ms: 0.5, P90Ms: 0.6, P99Ms: 1.8, P999Ms: 3, MeanMs: 0.6}, ""},
		{"noise can be negative", Summary{P50Ms: 1, P99Ms: 5}, Summary{P50Ms: 1.1, P99Ms: 4}, Added{P50Ms: 0.1, P99Ms: -1}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := added(c.direct, c.gw); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestErrCounter(t *testing.T) {
	var e errCounter
	for i := range maxErrorKinds + 5 {
		e.add(fmt.Sprintf("kind %d", i))
	}
	e.add("kind 0")
	if e.total() != maxErrorKinds+6 || len(e) != maxErrorKinds+1 || e["other"] != 5 || e["kind 0"] != 2 {
		t.Fatalf("total %d, kinds %d, other %d: %v", e.total(), len(e), e["other"], e)
	}
	var m errCounter
	m.merge(errCounter{"HTTP 500": 2})
	m.merge(errCounter{"HTTP 500": 1, "HTTP 402": 1})
	if got := describeErrors(m.kinds()); got != "HTTP 500 ×3, HTTP 402 ×1" {
		t.Fatalf("describeErrors = %q", got)
	}
	if (errCounter(nil)).kinds() != nil {
		t.Fatal("no errors should give nil kinds")
	}
}

func TestParseMallocs(t *testing.T) {
	cases := []struct {
		name string
		text string
		want float64
		ok   bool
	}{
		{"absent", "# HELP up\nup 1\n", 0, false},
		{"plain", "# HELP go_memstats_mallocs_total Total number of mallocs.\n# TYPE go_memstats_mallocs_total counter\ngo_memstats_mallocs_total 123456\n", 123456, true},
		{"exponent", "go_memstats_mallocs_total 1.234567e+06\n", 1234567, true},
		{"prefix is another metric", "go_memstats_mallocs_total_extra 5\ngo_memstats_mallocs_total 7\n", 7, true},
		{"with labels and timestamp", "go_memstats_mallocs_total{job=\"x\"} 42 1700000000000\n", 42, true},
		{"garbage value", "go_memstats_mallocs_total abc\n", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := parseMallocs([]byte(c.text))
			if got != c.want || ok != c.ok {
				t.Fatalf("got %v %v, want %v %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestProcParsers(t *testing.T) {
	status := []byte("Name:\tshlyuz\nVmHWM:\t   91234 kB\nVmRSS:\t   45678 kB\nThreads:\t9\n")
	for _, c := range []struct {
		field string
		want  int64
	}{{"VmRSS", 45678}, {"VmHWM", 91234}, {"VmSwap", 0}} {
		if got := parseStatusKB(status, c.field); got != c.want {
			t.Errorf("%s = %d, want %d", c.field, got, c.want)
		}
	}
	stats := []struct {
		name string
		stat string
		want time.Duration
		ok   bool
	}{
		{"plain", "1234 (shlyuz) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0", 3 * time.Second, true},
		{"name with spaces and parens", "99 (a (b) c) R 1 1 1 0 -1 0 0 0 0 0 7 3 0 0", 100 * time.Millisecond, true},
		{"short", "99 (x) R 1", 0, false},
	}
	for _, c := range stats {
		got, ok := parseStatCPU([]byte(c.stat))
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %v %v, want %v %v", c.name, got, ok, c.want, c.ok)
		}
	}
	busy, total, ok := parseProcStat([]byte("cpu  100 5 50 800 20 3 2 0 7 0\ncpu0 1 2 3 4\n"))
	if !ok || total != 980 || busy != 160 {
		t.Errorf("parseProcStat: busy %d total %d ok %v", busy, total, ok)
	}
	if got := cpuModel([]byte("processor\t: 0\nmodel name\t: AMD EPYC 7B13\n")); got != "AMD EPYC 7B13" {
		t.Errorf("cpuModel = %q", got)
	}
}

func TestHasContent(t *testing.T) {
	cases := []struct {
		line string
		want bool
	}{
		{`{"choices":[{"delta":{"role":"assistant","content":""}}]}`, false},
		{`{"choices":[{"delta":{"content":"tok0"}}]}`, true},
		{`{"choices":[{"delta":{"content": " tok1"}}]}`, true},
		{`{"choices":[],"usage":{"prompt_tokens":8}}`, false},
		{`{"choices":[{"delta":{},"finish_reason":"stop"}]}`, false},
	}
	for _, c := range cases {
		if got := hasContent([]byte(c.line)); got != c.want {
			t.Errorf("hasContent(%s) = %v", c.line, got)
		}
	}
}

// TestStreamOnce times a scripted SSE stream: a role chunk, three content
// chunks 20ms apart, a comment, usage and [DONE].
func TestStreamOnce(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		done     bool
		wantKind string
	}{
		{"complete", 200, true, ""},
		{"no [DONE]", 200, false, "stream ended without [DONE]"},
		{"refused", 402, true, "HTTP 402"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer k" || r.URL.Path != "/v1/chat/completions" {
					http.Error(w, "bad request", 400)
					return
				}
				body, _ := io.ReadAll(r.Body)
				if !bytes.Contains(body, []byte(`"stream":true`)) {
					http.Error(w, "not a stream", 400)
					return
				}
				w.WriteHeader(c.status)
				f := w.(http.Flusher)
				fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
				f.Flush()
				for i := range 3 {
					time.Sleep(20 * time.Millisecond)
					fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"tok%d\"}}]}\n\n: keep-alive\n\n", i)
					f.Flush()
				}
				fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{}}\n\n")
				if c.done {
					fmt.Fprint(w, "data: [DONE]\n\n")
				}
			}))
			defer srv.Close()
			tg := newTarget(srv.URL+"/v1/", "k", "m", true, 8)
			s, kind := streamOnce(context.Background(), srv.Client(), tg, bufio.NewReaderSize(nil, 64<<10))
			if kind != c.wantKind {
				t.Fatalf("kind %q, want %q", kind, c.wantKind)
			}
			if c.wantKind != "" {
				return
			}
			if s.chunks != 3 || len(s.gaps) != 2 {
				t.Fatalf("chunks %d, gaps %v", s.chunks, s.gaps)
			}
			for _, g := range s.gaps {
				if g < 15*time.Millisecond || g > 200*time.Millisecond {
					t.Fatalf("gap %v, want about 20ms", g)
				}
			}
			if !(s.firstData < s.firstContent && s.firstContent < s.total) {
				t.Fatalf("first data %v, first content %v, total %v", s.firstData, s.firstContent, s.total)
			}
		})
	}
}

// fixture is a complete set of results.
func fixture() *Results {
	lk, ll := int64(5_000_000_000), int64(4_999_000_000)
	gw, up, lg, busy := 310.0, 120.0, 90.0, 97.0
	d := Summary{Count: 2000, MeanMs: 0.3, P50Ms: 0.25, P90Ms: 0.4, P99Ms: 0.7, P999Ms: 1.2}
	g := Summary{Count: 1999, Errors: 1, ErrorKinds: map[string]int{"HTTP 502": 1}, MeanMs: 0.9, P50Ms: 0.75, P90Ms: 1, P99Ms: 2.5, P999Ms: 4}
	return &Results{
		Run: Run{Tool: "test", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), WallSeconds: 95,
			Machine: Machine{NProc: 2, GOMAXPROCS: 2, CPUModel: "AMD EPYC", GoVersion: "go1.26.8", OSArch: "linux/amd64",
				LoadAvgStart: "1.05 3.58 3.00", LoadAvgEnd: "2.00 2.50 2.90", GitCommit: "0123456789abcdef"},
			Params: Params{"n": "2000"}},
		Setup:   Setup{Gateway: "built-in", GatewayURL: "http://127.0.0.1:1/api/v1", DB: "sqlite (temporary directory)", KeyCeiling: lk},
		Latency: &LatencyResult{Upstream: "instant", Requests: 2000, Block: 50, Direct: d, Gateway: g, Added: added(d, g)},
		TTFT: &TTFTResult{Upstream: "instant", Streams: 300, DirectFirstData: d, GatewayFirstData: g, AddedFirstData: added(d, g),
			DirectFirstContent: d, GatewayFirstContent: g, AddedFirstContent: added(d, g)},
		InterChunk: &GapResult{Upstream: "stream", TokensPerSec: 200, ReplyTokens: 32, Streams: 40,
			Direct: GapStats{Streams: 40, Gaps: 1240, MeanMs: 5, P99Ms: 5.6}, Gateway: GapStats{Streams: 40, Gaps: 1240, MeanMs: 5.01, P99Ms: 5.9},
			AddedMeanMs: 0.01, AddedP99Ms: 0.3},
		Throughput: []ThroughputResult{{Upstream: "slow", Concurrency: 64, DurationS: 5, Order: "direct,gateway",
			Direct:  PhaseResult{RPS: 2900, Latency: d, UpstreamCPUUs: &up, LoadGenCPUUs: &lg, MachineBusyPerc: &busy},
			Gateway: PhaseResult{RPS: 2300, Latency: g, GatewayCPUUs: &gw, UpstreamCPUUs: &up, LoadGenCPUUs: &lg},
			Ratio:   0.7931, AddedP50Ms: 0.5, AddedP99Ms: 1.8}},
		Memory:  MemoryResult{Available: true, PID: 42, IdleBeforeKB: 33 * 1024, PeakUnderLoadKB: 90 * 1024, AfterIdleKB: 80 * 1024, HWMKB: 91 * 1024, Samples: 700, SampleEveryMs: 100, IdleWaitS: 3},
		Allocs:  AllocResult{Available: true, URL: "http://127.0.0.1:1/metrics", Requests: 1000, PerRequest: 217.4, PerScrape: 2948},
		Billing: &BillingCheck{KeyLimit: &lk, KeyUsage: 1_000_000, KeyLimitRemaining: &ll},
		Notes:   []string{"a note"},
	}
}

func TestMarkdown(t *testing.T) {
	cases := []struct {
		name   string
		change func(r *Results)
		want   []string
		absent []string
	}{
		{"complete", func(*Results) {}, []string{
			"# Shlyuz gateway overhead",
			"2 × AMD EPYC",
			"1.05 3.58 3.00 at start, 2.00 2.50 2.90 at end",
			"| direct | 0.250 | 0.400 | 0.700 | 1.200 | 0.300 | 2000 | 0 |",
			"| gateway | 0.750 | 1.000 | 2.500 | 4.000 | 0.900 | 1999 | 1 (HTTP 502 ×1) |",
			"| **added** | **+0.500** | +0.600 | **+1.800** | +2.800 | +0.600 | | |",
			"| **added** | **+0.010** | | **+0.300** |",
			"| slow | 64 | 2900 | 2300 | 0.79 | 0.250 / 0.700 | 0.750 / 2.500 | +0.500 | +1.800 | 0 / 1 (HTTP 502 ×1) | 310 · 120 · 90 | 97% (n/a) / n/a (n/a) |",
			"| 33.0 MiB | 90.0 MiB | 80.0 MiB | 91.0 MiB | 700 every 100 ms |",
			"217 heap allocations per request",
			"the key spent 1000000 credits of its 5000000000 ceiling",
			"commit 0123456789ab",
			"- a note",
		}, nil},
		{"no metrics, no pid, target", func(r *Results) {
			r.Allocs = AllocResult{Note: "GET http://127.0.0.1:1/metrics: HTTP 404"}
			r.Memory = MemoryResult{Note: "the gateway's pid is unknown"}
			r.Setup = Setup{Gateway: "target", GatewayURL: "http://127.0.0.1:2/v1"}
			r.Billing = nil
			r.InterChunk.TokensPerSec = 0
		}, []string{"n/a (GET http://127.0.0.1:1/metrics: HTTP 404)", "n/a: the gateway's pid is unknown", "- gateway: target (http://127.0.0.1:2/v1)\n",
			"## 3. Inter-chunk gaps of streams (the -direct upstream; 40 streams per side)"},
			[]string{"Billing check", "key ceiling", "heap allocations"}},
		{"scenarios skipped", func(r *Results) { r.Latency, r.TTFT, r.InterChunk, r.Throughput = nil, nil, nil, nil },
			[]string{"## 5."}, []string{"## 1.", "## 2.", "## 3.", "## 4."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := fixture()
			c.change(r)
			var b strings.Builder
			writeMarkdown(&b, r)
			out := b.String()
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(out, a) {
					t.Errorf("unexpected %q in:\n%s", a, out)
				}
			}
		})
	}
}

func TestJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	r := fixture()
	if err := writeJSON(path, r); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Latency.Added != r.Latency.Added || back.Machine != r.Machine || *back.Throughput[0].Gateway.GatewayCPUUs != 310 {
		t.Fatalf("round trip lost data:\n%s", raw)
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"machine.nproc", "machine.cpu_model", "machine.go_version", "machine.loadavg_start", "params.n",
		"latency_c1.added.p99_9_ms", "latency_c1.gateway.error_kinds", "ttft_c1.added_first_data.p50_ms", "inter_chunk.added_p99_ms",
		"memory.peak_under_load_kb", "allocs.mallocs_per_request", "billing.key_usage_credits"} {
		var cur any = generic
		for _, k := range strings.Split(path, ".") {
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("%s: %v is not an object", path, cur)
			}
			cur, ok = m[k]
			if !ok {
				t.Fatalf("JSON has no %s:\n%s", path, raw)
			}
		}
	}
}

func TestParseFlags(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		check   func(o *options) string
		wantErr string
	}{
		{"defaults", nil, func(o *options) string {
			if o.n != 2000 || o.duration != 5*time.Second || fmt.Sprint(o.levelList) != "[16 64 256]" || o.instantConc != 64 || o.out != "bench-results.json" {
				return fmt.Sprintf("%+v", o)
			}
			return ""
		}, ""},
		{"quick shrinks", []string{"-quick"}, func(o *options) string {
			if o.n != 200 || o.duration != 300*time.Millisecond || o.params["n"] != "200" {
				return fmt.Sprintf("n %d duration %v", o.n, o.duration)
			}
			return ""
		}, ""},
		{"explicit flags win over quick", []string{"-quick", "-n", "50", "-duration", "1s"}, func(o *options) string {
			if o.n != 50 || o.duration != time.Second || o.warmup != 20 {
				return fmt.Sprintf("n %d duration %v warmup %d", o.n, o.duration, o.warmup)
			}
			return ""
		}, ""},
		{"direct fills the others", []string{"-direct", "http://127.0.0.1:9/v1", "-direct-key", "secret"}, func(o *options) string {
			if o.directSlow != o.direct || o.directStream != o.direct || o.params["direct-key"] != "(set)" {
				return fmt.Sprintf("%q %q %q", o.directSlow, o.directStream, o.params["direct-key"])
			}
			return ""
		}, ""},
		{"db password hidden", []string{"-db", "postgres://u:hunter2@127.0.0.1/db"}, func(o *options) string {
			if strings.Contains(o.params["db"], "hunter2") {
				return o.params["db"]
			}
			return ""
		}, ""},
		{"remote target refused", []string{"-target", "http://example.com/v1", "-target-key", "k"}, nil, "not on a loopback address"},
		{"remote target allowed", []string{"-target", "http://example.com/v1", "-target-key", "k", "-allow-remote"}, nil, ""},
		{"target needs a key", []string{"-target", "http://127.0.0.1:8080/v1"}, nil, "-target needs -target-key"},
		{"bad level", []string{"-levels", "16,x"}, nil, "-levels"},
		{"bad db", []string{"-db", "mysql://x"}, nil, "-db must be"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := parseFlags(c.args, io.Discard)
			switch {
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("err %v, want %q", err, c.wantErr)
			case c.wantErr == "" && err != nil:
				t.Fatal(err)
			case c.check != nil:
				if msg := c.check(o); msg != "" {
					t.Fatal(msg)
				}
			}
		})
	}
}

func TestGatewayConfig(t *testing.T) {
	cfg := gatewayConfig([]benchUpstream{
		{name: "instant", model: "bench/instant", baseURL: "http://127.0.0.1:1/v1"},
		{name: "slow", model: "bench/slow", baseURL: "http://127.0.0.1:2/v1", withKey: true},
	})
	for _, want := range []string{
		`pricing: {rate: "100", K: "1"}`,
		`- {id: "bench/instant", name: "Benchmark instant"`,
		`prompt_usd_per_mtok: "0.1"`,
		"  - name: slow\n    protocol: openai\n    base_url: \"http://127.0.0.1:2/v1\"\n    api_key_env: " + upstreamKeyEnv,
		"max_concurrent: 4096",
		`- {match: "bench/slow", upstreams: [slow], strip_prefix: false}`,
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %q:\n%s", want, cfg)
		}
	}
	if strings.Count(cfg, "api_key_env") != 1 {
		t.Errorf("only the slow upstream has a key:\n%s", cfg)
	}
}

// TestSmoke runs the whole benchmark in -quick mode: it builds the gateway
// and the fake, starts them (and this test binary as the bare proxy, see
// TestMain) and measures for a few seconds. It checks that every scenario
// ran and counted, not how fast: speed is the benchmark's to report.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("the smoke run builds and starts the gateway and takes ~20 s")
	}
	out := filepath.Join(t.TempDir(), "results.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"-quick", "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r Results
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	switch {
	case r.Latency == nil || r.Latency.Direct.Count != 200 || r.Latency.Gateway.Count != 200:
		t.Fatalf("scenario 1: %+v", r.Latency)
	case r.TTFT == nil || r.TTFT.GatewayFirstData.Count != 30 || r.TTFT.GatewayFirstData.P50Ms <= 0:
		t.Fatalf("scenario 2: %+v", r.TTFT)
	case r.InterChunk == nil || r.InterChunk.Gateway.Gaps == 0 || r.InterChunk.Gateway.Errors != 0:
		t.Fatalf("scenario 3: %+v", r.InterChunk)
	case r.Latency.Floor == nil || r.Latency.Floor.Count != 200 || r.Latency.FloorKind != "fasthttp":
		t.Fatalf("scenario 1 has no fasthttp floor: %+v", r.Latency)
	case len(r.Throughput) != 4 || r.Throughput[0].Gateway.RPS <= 0:
		t.Fatalf("scenario 4: %+v", r.Throughput)
	case r.Throughput[3].Floor == nil || r.Throughput[3].Floor.RPS <= 0 || r.Throughput[3].Floor.GatewayCPUUs == nil || r.Throughput[3].GatewayPerFloor <= 0:
		t.Fatalf("scenario 4's instant level has no floor: %+v", r.Throughput[3])
	case !r.Memory.Available || r.Memory.PeakUnderLoadKB < r.Memory.IdleBeforeKB:
		t.Fatalf("scenario 5: %+v", r.Memory)
	case r.Billing == nil || r.Billing.KeyUsage <= 0:
		t.Fatalf("billing did not run: %+v", r.Billing)
	case len(r.Prompts) != 4:
		t.Fatalf("scenario 7: %d prompt sizes, want short, 1KB, 150KB and 1MB", len(r.Prompts))
	}
	for _, p := range r.Prompts {
		for side, s := range map[string]Summary{"direct": p.Direct, "bare proxy": p.Bare, "gateway": p.Gateway} {
			if p.Requests <= 0 || s.Count != p.Requests || s.Errors != 0 {
				t.Errorf("scenario 7, %s, %s: %d answered, %d errors of %d", p.Size, side, s.Count, s.Errors, p.Requests)
			}
		}
		for side, l := range map[string]PhaseResult{"direct": p.DirectLoop, "bare proxy": p.BareLoop, "gateway": p.GatewayLoop} {
			// -quick's 300 ms loop may end before 64 requests of 1 MB do.
			if l.Latency.Errors != 0 || l.RPS <= 0 && p.PromptChars < 500_000 {
				t.Errorf("scenario 7, %s, %s closed loop: %v req/s, %d errors", p.Size, side, l.RPS, l.Latency.Errors)
			}
		}
	}
	for _, want := range []string{"## 1. Added latency", "## 4. Throughput", "## 6. Allocations per request", "## 7. Large contexts"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout.String())
		}
	}
	t.Logf("\n%s", stdout.String())
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
