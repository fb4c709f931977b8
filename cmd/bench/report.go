package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Run is what every results file starts with: the tool, when it ran, on
// what machine and with which flags.
type Run struct {
	Tool        string    `json:"tool"`
	StartedAt   time.Time `json:"started_at"`
	FinishedAt  time.Time `json:"finished_at"`
	WallSeconds float64   `json:"wall_seconds"`
	Machine     Machine   `json:"machine"`
	Params      Params    `json:"params"`
}

// Results is every number of one run; it is written as JSON (-out) and
// printed as a markdown table.
type Results struct {
	Run
	Setup      Setup              `json:"setup"`
	Latency    *LatencyResult     `json:"latency_c1,omitempty"`
	TTFT       *TTFTResult        `json:"ttft_c1,omitempty"`
	InterChunk *GapResult         `json:"inter_chunk,omitempty"`
	Throughput []ThroughputResult `json:"throughput,omitempty"`
	Memory     MemoryResult       `json:"memory"`
	Allocs     AllocResult        `json:"allocs"`
	Prompts    []PromptResult     `json:"prompt_sizes,omitempty"`
	Billing    *BillingCheck      `json:"billing,omitempty"`
	Notes      []string           `json:"notes,omitempty"`
}

// Setup is what was measured.
type Setup struct {
	Gateway       string `json:"gateway"` // "built-in" or "target"
	GatewayURL    string `json:"gateway_url"`
	GatewayPID    int    `json:"gateway_pid,omitempty"`
	DB            string `json:"db,omitempty"`
	DirectInstant string `json:"direct_instant"`
	DirectSlow    string `json:"direct_slow"`
	DirectStream  string `json:"direct_stream"`
	ModelInstant  string `json:"model_instant"`
	ModelSlow     string `json:"model_slow"`
	ModelStream   string `json:"model_stream"`
	Credits       int64  `json:"credits,omitempty"`
	KeyCeiling    int64  `json:"key_ceiling,omitempty"`
	Config        string `json:"gateway_config,omitempty"`
}

// LatencyResult is scenario 1: added latency at concurrency 1, non-streamed.
type LatencyResult struct {
	Upstream string  `json:"upstream"`
	Requests int     `json:"requests_per_side"`
	Block    int     `json:"block"`
	Direct   Summary `json:"direct"`
	Gateway  Summary `json:"gateway"`
	Added    Added   `json:"added"`
	// Floor is the bare proxy's side (-floor), in the same rotating blocks;
	// AddedP50PerFloor and AddedP99PerFloor are the gateway's added latency
	// over the proxy's.
	FloorKind        string   `json:"floor_kind,omitempty"`
	Floor            *Summary `json:"floor,omitempty"`
	FloorAdded       *Added   `json:"floor_added,omitempty"`
	AddedP50PerFloor float64  `json:"gateway_added_p50_per_floor_added_p50,omitempty"`
	AddedP99PerFloor float64  `json:"gateway_added_p99_per_floor_added_p99,omitempty"`
}

// TTFTResult is scenario 2: time to the first data line and to the first
// content chunk of a stream at concurrency 1.
type TTFTResult struct {
	Upstream            string  `json:"upstream"`
	Streams             int     `json:"streams_per_side"`
	DirectFirstData     Summary `json:"direct_first_data"`
	GatewayFirstData    Summary `json:"gateway_first_data"`
	AddedFirstData      Added   `json:"added_first_data"`
	DirectFirstContent  Summary `json:"direct_first_content"`
	GatewayFirstContent Summary `json:"gateway_first_content"`
	AddedFirstContent   Added   `json:"added_first_content"`
}

// GapResult is scenario 3: gaps between content chunks of paced streams.
type GapResult struct {
	Upstream     string   `json:"upstream"`
	TokensPerSec int      `json:"tokens_per_sec"`
	ReplyTokens  int      `json:"reply_tokens"`
	Streams      int      `json:"streams_per_side"`
	Direct       GapStats `json:"direct"`
	Gateway      GapStats `json:"gateway"`
	AddedMeanMs  float64  `json:"added_mean_ms"`
	AddedP99Ms   float64  `json:"added_p99_ms"`
}

// GapStats describes the gaps of one side's streams.
type GapStats struct {
	Streams         int            `json:"streams"`
	Errors          int            `json:"errors"`
	ErrorKinds      map[string]int `json:"error_kinds,omitempty"`
	Gaps            int            `json:"gaps"`
	MeanMs          float64        `json:"mean_ms"`
	P50Ms           float64        `json:"p50_ms"`
	P99Ms           float64        `json:"p99_ms"`
	MaxMs           float64        `json:"max_ms"`
	ChunksPerStream float64        `json:"chunks_per_stream"`
	StreamMeanMs    float64        `json:"stream_mean_ms"`
}

// ThroughputResult is scenario 4 at one concurrency.
type ThroughputResult struct {
	Upstream    string      `json:"upstream"`
	Concurrency int         `json:"concurrency"`
	DurationS   float64     `json:"duration_s"`
	Order       string      `json:"order"` // "direct,gateway" or "gateway,direct"
	Direct      PhaseResult `json:"direct"`
	Gateway     PhaseResult `json:"gateway"`
	Ratio       float64     `json:"ratio"` // gateway req/s ÷ direct req/s
	// Floor is the bare proxy's closed loop (instant upstream only); its
	// gateway CPU is the proxy's. GatewayPerFloor is gateway req/s ÷ floor req/s.
	Floor           *PhaseResult `json:"floor,omitempty"`
	FloorRatio      float64      `json:"floor_ratio,omitempty"`
	GatewayPerFloor float64      `json:"gateway_per_floor,omitempty"`
	AddedP50Ms      float64      `json:"added_p50_ms"`
	AddedP99Ms      float64      `json:"added_p99_ms"`
	// JournalRowsPerCommit is the built-in gateway's mean journal batch
	// (ledger entries and generation records: two a billed call) over the
	// level, from shlyuz_journal_batch_size; absent when unknown.
	JournalRowsPerCommit *float64 `json:"journal_rows_per_commit,omitempty"`
	// LogRecordsPerWrite is the mean number of settlements one write to the
	// write-ahead log carried during the level (shlyuz_journal_log_write_records).
	LogRecordsPerWrite *float64 `json:"log_records_per_write,omitempty"`
}

// PhaseResult is one closed-loop run. CPU is microseconds of CPU time per
// successful request of the gateway, of the upstream fake and of the load
// generator (this process), from /proc/<pid>/stat; absent when unknown.
type PhaseResult struct {
	RPS             float64  `json:"rps"`
	Latency         Summary  `json:"latency"`
	GatewayCPUUs    *float64 `json:"gateway_cpu_us_per_req,omitempty"`
	UpstreamCPUUs   *float64 `json:"upstream_cpu_us_per_req,omitempty"`
	LoadGenCPUUs    *float64 `json:"loadgen_cpu_us_per_req,omitempty"`
	MachineBusyPerc *float64 `json:"cpu_busy_percent_of_machine,omitempty"`
	// OthersBusyPerc is the busy CPU of the machine not spent by the gateway,
	// the fake or the load generator: other processes (compilers, tests).
	OthersBusyPerc *float64 `json:"cpu_busy_percent_others,omitempty"`
}

// MemoryResult is scenario 5: the gateway's resident memory.
type MemoryResult struct {
	Available       bool    `json:"available"`
	PID             int     `json:"pid,omitempty"`
	IdleBeforeKB    int64   `json:"idle_before_kb,omitempty"`
	PeakUnderLoadKB int64   `json:"peak_under_load_kb,omitempty"`
	Samples         int     `json:"samples,omitempty"`
	SampleEveryMs   float64 `json:"sample_every_ms,omitempty"`
	AfterIdleKB     int64   `json:"after_idle_kb,omitempty"`
	IdleWaitS       float64 `json:"idle_wait_s,omitempty"`
	HWMKB           int64   `json:"vm_hwm_kb,omitempty"`
	Note            string  `json:"note,omitempty"`
}

// AllocResult is scenario 6: heap allocations per request from the
// gateway's go_memstats_mallocs_total.
type AllocResult struct {
	Available  bool    `json:"available"`
	URL        string  `json:"url,omitempty"`
	Requests   int     `json:"requests,omitempty"`
	PerRequest float64 `json:"mallocs_per_request,omitempty"`
	PerScrape  float64 `json:"mallocs_per_scrape,omitempty"`
	Note       string  `json:"note,omitempty"`
}

// BillingCheck shows that billing and the key ceiling were on.
type BillingCheck struct {
	KeyLimit          *int64 `json:"key_limit"`
	KeyUsage          int64  `json:"key_usage_credits"`
	KeyLimitRemaining *int64 `json:"key_limit_remaining"`
	BalanceCredits    *int64 `json:"balance_credits,omitempty"`
}

// writeJSON writes the results (*Results or *ClusterResults), indented, to path.
func writeJSON(path string, r any) error {
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

func f3(x float64) string { return fmt.Sprintf("%.3f", x) }
func s3(x float64) string { return fmt.Sprintf("%+.3f", x) }

func optUs(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", *p)
}

func optPerc(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", *p)
}

func mb(kb int64) string {
	if kb <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
}

func errCell(s Summary) string {
	if s.Errors == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", s.Errors, describeErrors(s.ErrorKinds))
}

// when is "2026-01-02T03:04:05Z, 95 s wall, commit 0123456789ab": when the
// run started, how long it took and at which commit (marked when dirty).
func (r *Run) when() string {
	s := fmt.Sprintf("%s, %.0f s wall", r.StartedAt.Format(time.RFC3339), r.WallSeconds)
	if m := r.Machine; m.GitCommit != "" {
		s += fmt.Sprintf(", commit %.12s", m.GitCommit)
		if m.GitDirty {
			s += " (+ uncommitted changes)"
		}
	}
	return s
}

// writeMarkdown prints the results as markdown tables.
func writeMarkdown(w io.Writer, r *Results) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# Shlyuz gateway overhead: direct vs through the gateway\n\n")
	m := r.Machine
	p("- machine: %d × %s (GOMAXPROCS %d), %s, kernel %s, %s\n", m.NProc, m.CPUModel, m.GOMAXPROCS, m.OSArch, m.Kernel, m.GoVersion)
	p("- load average (1/5/15 min): %s at start, %s at end\n", m.LoadAvgStart, m.LoadAvgEnd)
	gw := r.Setup.Gateway
	if r.Setup.DB != "" {
		gw += ", store " + r.Setup.DB
	}
	p("- gateway: %s (%s)", gw, r.Setup.GatewayURL)
	if r.Setup.KeyCeiling > 0 {
		p("; billing on, key ceiling %d credits/month", r.Setup.KeyCeiling)
	}
	if r.Params["durable"] == "false" {
		p("; durable settlement off (-durable=false)")
	}
	p("\n- direct: instant %s, slow %s, stream %s", r.Setup.DirectInstant, r.Setup.DirectSlow, r.Setup.DirectStream)
	p("\n- when: %s", r.when())
	p("\n- all times in ms; added = gateway − direct, percentile by percentile; only HTTP 200 counts\n\n")

	if l := r.Latency; l != nil {
		p("## 1. Added latency, concurrency 1, non-streamed (%s upstream, %d requests per side, alternating blocks of %d)\n\n", l.Upstream, l.Requests, l.Block)
		p("| | p50 | p90 | p99 | p99.9 | mean | ok | errors |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
		p("| direct | %s | %s | %s | %s | %s | %d | %s |\n", f3(l.Direct.P50Ms), f3(l.Direct.P90Ms), f3(l.Direct.P99Ms), f3(l.Direct.P999Ms), f3(l.Direct.MeanMs), l.Direct.Count, errCell(l.Direct))
		p("| gateway | %s | %s | %s | %s | %s | %d | %s |\n", f3(l.Gateway.P50Ms), f3(l.Gateway.P90Ms), f3(l.Gateway.P99Ms), f3(l.Gateway.P999Ms), f3(l.Gateway.MeanMs), l.Gateway.Count, errCell(l.Gateway))
		if f := l.Floor; f != nil {
			p("| %s proxy | %s | %s | %s | %s | %s | %d | %s |\n", l.FloorKind, f3(f.P50Ms), f3(f.P90Ms), f3(f.P99Ms), f3(f.P999Ms), f3(f.MeanMs), f.Count, errCell(*f))
		}
		p("| **added** | **%s** | %s | **%s** | %s | %s | | |\n", s3(l.Added.P50Ms), s3(l.Added.P90Ms), s3(l.Added.P99Ms), s3(l.Added.P999Ms), s3(l.Added.MeanMs))
		if fa := l.FloorAdded; fa != nil {
			p("| %s proxy added | %s | %s | %s | %s | %s | | |\n", l.FloorKind, s3(fa.P50Ms), s3(fa.P90Ms), s3(fa.P99Ms), s3(fa.P999Ms), s3(fa.MeanMs))
			p("| **gateway ÷ proxy added** | **%.2f** | | **%.2f** | | | | |\n", l.AddedP50PerFloor, l.AddedP99PerFloor)
		}
		p("\n")
	}
	if t := r.TTFT; t != nil {
		p("## 2. Time to first token, concurrency 1, streamed (%s upstream, %d streams per side)\n\n", t.Upstream, t.Streams)
		p("| | first `data:` p50 | p99 | first content p50 | p99 | ok | errors |\n|---|---:|---:|---:|---:|---:|---|\n")
		p("| direct | %s | %s | %s | %s | %d | %s |\n", f3(t.DirectFirstData.P50Ms), f3(t.DirectFirstData.P99Ms), f3(t.DirectFirstContent.P50Ms), f3(t.DirectFirstContent.P99Ms), t.DirectFirstData.Count, errCell(t.DirectFirstData))
		p("| gateway | %s | %s | %s | %s | %d | %s |\n", f3(t.GatewayFirstData.P50Ms), f3(t.GatewayFirstData.P99Ms), f3(t.GatewayFirstContent.P50Ms), f3(t.GatewayFirstContent.P99Ms), t.GatewayFirstData.Count, errCell(t.GatewayFirstData))
		p("| **added** | **%s** | **%s** | %s | %s | | |\n\n", s3(t.AddedFirstData.P50Ms), s3(t.AddedFirstData.P99Ms), s3(t.AddedFirstContent.P50Ms), s3(t.AddedFirstContent.P99Ms))
	}
	if g := r.InterChunk; g != nil {
		pacing := "the -direct upstream"
		if g.TokensPerSec > 0 {
			pacing = fmt.Sprintf("%s upstream: %d tokens at %d tokens/s", g.Upstream, g.ReplyTokens, g.TokensPerSec)
		}
		p("## 3. Inter-chunk gaps of streams (%s; %d streams per side)\n\n", pacing, g.Streams)
		p("| | mean gap | p50 | p99 | max | gaps | content chunks/stream | stream mean | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, row := range []struct {
			name string
			s    GapStats
		}{{"direct", g.Direct}, {"gateway", g.Gateway}} {
			errs := "0"
			if row.s.Errors > 0 {
				errs = fmt.Sprintf("%d (%s)", row.s.Errors, describeErrors(row.s.ErrorKinds))
			}
			p("| %s | %s | %s | %s | %s | %d | %.1f | %s | %s |\n", row.name, f3(row.s.MeanMs), f3(row.s.P50Ms), f3(row.s.P99Ms), f3(row.s.MaxMs), row.s.Gaps, row.s.ChunksPerStream, f3(row.s.StreamMeanMs), errs)
		}
		p("| **added** | **%s** | | **%s** | | | | | |\n\n", s3(g.AddedMeanMs), s3(g.AddedP99Ms))
	}
	if len(r.Throughput) > 0 {
		p("## 4. Throughput, closed loop (each level %s s per side after a warm-up)\n\n", trimFloat(r.Throughput[0].DurationS))
		p("| upstream | c | direct req/s | gateway req/s | gw/direct | direct p50 / p99 | gateway p50 / p99 | added p50 | added p99 | errors d / gw | CPU µs/req gw · fake · loadgen | machine busy (others) d / gw |\n")
		p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n")
		for _, t := range r.Throughput {
			p("| %s | %d | %.0f | %.0f | %.2f | %s / %s | %s / %s | %s | %s | %s / %s | %s · %s · %s | %s (%s) / %s (%s) |\n",
				t.Upstream, t.Concurrency, t.Direct.RPS, t.Gateway.RPS, t.Ratio,
				f3(t.Direct.Latency.P50Ms), f3(t.Direct.Latency.P99Ms), f3(t.Gateway.Latency.P50Ms), f3(t.Gateway.Latency.P99Ms),
				s3(t.AddedP50Ms), s3(t.AddedP99Ms), errCell(t.Direct.Latency), errCell(t.Gateway.Latency),
				optUs(t.Gateway.GatewayCPUUs), optUs(t.Gateway.UpstreamCPUUs), optUs(t.Gateway.LoadGenCPUUs),
				optPerc(t.Direct.MachineBusyPerc), optPerc(t.Direct.OthersBusyPerc), optPerc(t.Gateway.MachineBusyPerc), optPerc(t.Gateway.OthersBusyPerc))
		}
		for _, t := range r.Throughput {
			if f := t.Floor; f != nil {
				p("\nAt c=%d on the %s upstream, the bare %s proxy (the floor) served %.0f req/s (%.2f of direct) at %s µs of CPU a request; **the gateway kept %.2f of it**.\n",
					t.Concurrency, t.Upstream, r.Params["floor"], f.RPS, t.FloorRatio, optUs(f.GatewayCPUUs), t.GatewayPerFloor)
			}
		}
		p("\n")
	}
	mem := r.Memory
	p("## 5. Gateway resident memory (VmRSS)\n\n")
	if mem.Available {
		p("| idle before load | peak under load | after load, idle %s s | VmHWM (kernel peak) | samples |\n|---:|---:|---:|---:|---:|\n", trimFloat(mem.IdleWaitS))
		p("| %s | %s | %s | %s | %d every %s ms |\n\n", mb(mem.IdleBeforeKB), mb(mem.PeakUnderLoadKB), mb(mem.AfterIdleKB), mb(mem.HWMKB), mem.Samples, trimFloat(mem.SampleEveryMs))
	} else {
		p("n/a: %s\n\n", mem.Note)
	}
	a := r.Allocs
	p("## 6. Allocations per request\n\n")
	if a.Available {
		p("%.0f heap allocations per request (go_memstats_mallocs_total over %d requests at %s, minus %.0f per scrape)\n\n", a.PerRequest, a.Requests, a.URL, a.PerScrape)
	} else {
		p("n/a (%s)\n\n", a.Note)
	}
	writePrompts(w, r.Prompts)
	if b := r.Billing; b != nil {
		p("Billing check: the key spent %d credits", b.KeyUsage)
		if b.KeyLimit != nil && b.KeyLimitRemaining != nil {
			p(" of its %d ceiling (%d left)", *b.KeyLimit, *b.KeyLimitRemaining)
		}
		p(".\n\n")
	}
	if len(r.Notes) > 0 {
		p("Notes:\n\n")
		for _, n := range r.Notes {
			p("- %s\n", n)
		}
	}
}

// trimFloat prints 5 as "5" and 0.3 as "0.3".
func trimFloat(x float64) string {
	s := strings.TrimRight(fmt.Sprintf("%.3f", x), "0")
	return strings.TrimSuffix(s, ".")
}

// writePrompts is scenario 7's table.
func writePrompts(w io.Writer, rs []PromptResult) {
	if len(rs) == 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("## 7. Large contexts: direct, bare proxy, gateway (instant upstream; concurrency 1 in rotating blocks, then a closed loop)\n\n")
	p("| prompt | body bytes | direct p50 | bare proxy added p50 | gateway added p50 | added ÷ direct p50 | gateway added p99 | c | direct req/s | bare ÷ direct | gateway ÷ direct | CPU µs/req gw · bare | gateway allocates (× body) | errors d / bare / gw |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n")
	for _, r := range rs {
		alloc := "n/a"
		if r.AllocBytes != nil && r.AllocPerBody != nil {
			alloc = fmt.Sprintf("%.0f KB (%.2f)", *r.AllocBytes/1000, *r.AllocPerBody)
		}
		p("| %s | %d | %s | %s | **%s** | **%.2f** | %s | %d | %.0f | %.2f | **%.2f** | %s · %s | %s | %s / %s / %s |\n",
			r.Size, r.BodyBytes, f3(r.Direct.P50Ms), s3(r.BareAdded.P50Ms), s3(r.GatewayAdded.P50Ms), r.AddedPerP50, s3(r.GatewayAdded.P99Ms),
			r.Concurrency, r.DirectLoop.RPS, r.BareRatio, r.GatewayRatio, optUs(r.GatewayLoop.GatewayCPUUs), optUs(r.BareLoop.GatewayCPUUs),
			alloc, errCell(r.Direct), errCell(r.Bare), errCell(r.Gateway))
	}
	p("\n")
}
