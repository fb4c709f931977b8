package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// measure runs the scenarios in order (scenario 7 alone under -only-prompts);
// memory is sampled throughout.
func (b *bench) measure(ctx context.Context) error {
	o := b.o
	if o.onlyPrompts {
		b.res.Memory.Note, b.res.Allocs.Note = "not measured (-only-prompts)", "not measured (-only-prompts)"
		b.res.Prompts = b.prompts(ctx, b.instantURL, b.bareURL, o.modelInstant, b.instantModel)
		return ctx.Err()
	}
	var rss *rssSampler
	if b.gwPID > 0 && procStatusKB(b.gwPID, "VmRSS") > 0 {
		rss = newRSSSampler(b.gwPID, o.sampleEvery)
		defer rss.stop()
		sleep(ctx, o.pause) // let the set-up settle
		b.res.Memory = MemoryResult{Available: true, PID: b.gwPID, IdleBeforeKB: procStatusKB(b.gwPID, "VmRSS"),
			SampleEveryMs: float64(o.sampleEvery) / 1e6}
		rss.begin()
	} else {
		b.res.Memory.Note = "the gateway's pid is unknown (give -target-pid) or /proc is not readable"
	}

	// 1. Added latency at concurrency 1, non-streamed.
	b.logf("1/6 added latency: %d warm-up + %d requests per side at concurrency 1", o.warmup, o.n)
	if o.warmup > 0 {
		sequential(ctx, b.client, b.instantD, b.instantG, o.warmup, o.block)
	}
	profiled := b.cpuProfile(ctx, "c1", int(time.Duration(o.n)*time.Millisecond/time.Second)) // about the gateway's half of the run
	sides := []*target{b.instantD, b.instantG}
	if b.bareD != nil {
		sides = append(sides, b.bareD)
	}
	lats, errs := interleave(ctx, b.client, sides, o.n, o.block)
	profiled()
	if err := ctx.Err(); err != nil {
		return err
	}
	lr := &LatencyResult{Upstream: "instant", Requests: o.n, Block: o.block, Direct: summarize(lats[0], errs[0]), Gateway: summarize(lats[1], errs[1])}
	lr.Added = added(lr.Direct, lr.Gateway)
	b.res.Latency = lr
	if b.bareD != nil {
		floor := summarize(lats[2], errs[2])
		lr.Floor, lr.FloorKind = &floor, o.floorKind
		fa := added(lr.Direct, floor)
		lr.FloorAdded = &fa
		lr.AddedP50PerFloor, lr.AddedP99PerFloor = ratio(lr.Added.P50Ms, fa.P50Ms), ratio(lr.Added.P99Ms, fa.P99Ms)
		b.logf("   added p50 %s ms, p99 %s ms; %s proxy added p50 %s ms, p99 %s ms", s3(lr.Added.P50Ms), s3(lr.Added.P99Ms), o.floorKind, s3(fa.P50Ms), s3(fa.P99Ms))
	} else {
		b.logf("   added p50 %s ms, p99 %s ms", s3(lr.Added.P50Ms), s3(lr.Added.P99Ms))
	}

	// 2. Time to first token.
	b.logf("2/6 time to first token: %d streams per side at concurrency 1", o.ttftStreams)
	streams(ctx, b.client, b.ttftD, b.ttftG, max(1, o.warmup/10))
	sd, sg, esd, esg := streams(ctx, b.client, b.ttftD, b.ttftG, o.ttftStreams)
	if err := ctx.Err(); err != nil {
		return err
	}
	tr := &TTFTResult{Upstream: "instant", Streams: o.ttftStreams}
	tr.DirectFirstData, tr.DirectFirstContent = summarize(pick(sd, firstData), esd), summarize(pick(sd, firstContent), esd)
	tr.GatewayFirstData, tr.GatewayFirstContent = summarize(pick(sg, firstData), esg), summarize(pick(sg, firstContent), esg)
	tr.AddedFirstData = added(tr.DirectFirstData, tr.GatewayFirstData)
	tr.AddedFirstContent = added(tr.DirectFirstContent, tr.GatewayFirstContent)
	b.res.TTFT = tr
	b.logf("   added p50 %s ms, p99 %s ms", s3(tr.AddedFirstData.P50Ms), s3(tr.AddedFirstData.P99Ms))

	// 3. Inter-chunk gaps of paced streams.
	b.logf("3/6 inter-chunk gaps: %d paced streams per side", o.gapStreams)
	streams(ctx, b.client, b.pacedD, b.pacedG, 1)
	pd, pg, epd, epg := streams(ctx, b.client, b.pacedD, b.pacedG, o.gapStreams)
	if err := ctx.Err(); err != nil {
		return err
	}
	gr := &GapResult{Upstream: "stream", TokensPerSec: o.tokensPerSec, ReplyTokens: o.streamTokens, Streams: o.gapStreams,
		Direct: gapStats(pd, epd), Gateway: gapStats(pg, epg)}
	if o.direct != "" || o.directStream != "" {
		gr.TokensPerSec, gr.ReplyTokens = 0, 0 // not our fake: unknown
	}
	gr.AddedMeanMs = round4(gr.Gateway.MeanMs - gr.Direct.MeanMs)
	gr.AddedP99Ms = round4(gr.Gateway.P99Ms - gr.Direct.P99Ms)
	b.res.InterChunk = gr
	b.logf("   added mean %s ms, p99 %s ms", s3(gr.AddedMeanMs), s3(gr.AddedP99Ms))

	// 6. Allocations per request (before the heavy load, at concurrency 1).
	b.logf("6/6 allocations per request")
	b.res.Allocs = b.allocs(ctx)
	if err := ctx.Err(); err != nil {
		return err
	}

	// 4. Throughput.
	type level struct {
		name string
		d, g *target
		pid  int
		conc int
	}
	var levels []level
	for _, c := range o.levelList {
		levels = append(levels, level{"slow", b.slowD, b.slowG, b.fakePID["slow"], c})
	}
	if o.instantConc > 0 {
		levels = append(levels, level{"instant", b.instantD, b.instantG, b.fakePID["instant"], o.instantConc})
	}
	for i, l := range levels {
		b.logf("4/6 throughput: %s upstream, concurrency %d, %s per side (%d of %d)", l.name, l.conc, o.duration, i+1, len(levels))
		profiled := func() {}
		if l.name == "instant" {
			profiled = b.cpuProfile(ctx, "instant", int((2*o.duration+2*o.levelWarmup)/time.Second))
		}
		rows0, commits0, batched := b.journalBatches("shlyuz_journal_batch_size")
		recs0, writes0, logged := b.journalBatches("shlyuz_journal_log_write_records")
		var floor *target
		if l.name == "instant" {
			floor = b.bareD
		}
		t := b.throughput(ctx, l.name, l.d, l.g, floor, l.pid, l.conc, i%2 == 1)
		profiled()
		if rows1, commits1, ok := b.journalBatches("shlyuz_journal_batch_size"); batched && ok && commits1 > commits0 {
			mean := round4((rows1 - rows0) / (commits1 - commits0))
			t.JournalRowsPerCommit = &mean
			b.logf("   journal: %.1f rows a commit (a billed call writes two)", mean)
		}
		if recs1, writes1, ok := b.journalBatches("shlyuz_journal_log_write_records"); logged && ok && writes1 > writes0 {
			mean := round4((recs1 - recs0) / (writes1 - writes0))
			t.LogRecordsPerWrite = &mean
			b.logf("   write-ahead log: %.1f settlements a write", mean)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		b.res.Throughput = append(b.res.Throughput, t)
		b.logf("   %.0f vs %.0f req/s (%.2f), added p50 %s ms, p99 %s ms", t.Direct.RPS, t.Gateway.RPS, t.Ratio, s3(t.AddedP50Ms), s3(t.AddedP99Ms))
		if t.Floor != nil {
			b.logf("   %s proxy %.0f req/s (%.2f of direct); the gateway keeps %.2f of it", o.floorKind, t.Floor.RPS, t.FloorRatio, t.GatewayPerFloor)
		}
	}

	// 7. Large contexts (before memory's idle reading: its peak counts them).
	if len(o.promptSizes) > 0 {
		b.res.Prompts = b.prompts(ctx, b.instantURL, b.bareURL, o.modelInstant, b.instantModel)
		if err := ctx.Err(); err != nil {
			return err
		}
	}

	// 5. Memory after the load, once idle.
	if rss != nil {
		b.res.Memory.PeakUnderLoadKB, b.res.Memory.Samples = rss.end()
		b.logf("5/6 memory: idle %s after the load", o.idleWait)
		b.client.CloseIdleConnections()
		sleep(ctx, o.idleWait)
		b.res.Memory.AfterIdleKB = procStatusKB(b.gwPID, "VmRSS")
		b.res.Memory.HWMKB = procStatusKB(b.gwPID, "VmHWM")
		b.res.Memory.IdleWaitS = o.idleWait.Seconds()
	}
	b.res.Billing = b.billing()
	return ctx.Err()
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func firstData(s streamSample) time.Duration    { return s.firstData }
func firstContent(s streamSample) time.Duration { return s.firstContent }

func pick(ss []streamSample, f func(streamSample) time.Duration) []time.Duration {
	out := make([]time.Duration, 0, len(ss))
	for _, s := range ss {
		out = append(out, f(s))
	}
	return out
}

func gapStats(ss []streamSample, errs errCounter) GapStats {
	g := GapStats{Streams: len(ss), Errors: errs.total(), ErrorKinds: errs.kinds()}
	var gaps, totals []time.Duration
	chunks := 0
	for _, s := range ss {
		gaps = append(gaps, s.gaps...)
		totals = append(totals, s.total)
		chunks += s.chunks
	}
	sg := summarize(gaps, nil)
	g.Gaps, g.MeanMs, g.P50Ms, g.P99Ms, g.MaxMs = sg.Count, sg.MeanMs, sg.P50Ms, sg.P99Ms, sg.MaxMs
	if len(ss) > 0 {
		g.ChunksPerStream = float64(chunks) / float64(len(ss))
		g.StreamMeanMs = summarize(totals, nil).MeanMs
	}
	return g
}

// cpuSnap is the CPU time of the processes involved at one moment.
type cpuSnap struct {
	gw, up, self       time.Duration
	gwOK, upOK, selfOK bool
	busy, total        int64
	machineOK          bool
}

func takeCPU(gwPID, upPID int) cpuSnap {
	if gwPID > 0 {
		return takeCPUs([]int{gwPID}, upPID)
	}
	return takeCPUs(nil, upPID)
}

// takeCPUs is takeCPU of a gateway of several processes (a cluster's
// nodes): gw is the sum of their CPU times, known only if every one's is.
func takeCPUs(gwPIDs []int, upPID int) cpuSnap {
	var s cpuSnap
	s.gwOK = len(gwPIDs) > 0
	for _, pid := range gwPIDs {
		t, ok := cpuTime(fmt.Sprint(pid))
		s.gw += t
		s.gwOK = s.gwOK && ok
	}
	if upPID > 0 {
		s.up, s.upOK = cpuTime(fmt.Sprint(upPID))
	}
	s.self, s.selfOK = cpuTime("self")
	s.busy, s.total, s.machineOK = machineCPU()
	return s
}

// perRequest fills the CPU fields of p from two snapshots around a phase of n requests.
func perRequest(p *PhaseResult, a, z cpuSnap, n int, withGateway bool) {
	if n <= 0 {
		return
	}
	us := func(d time.Duration) *float64 {
		v := round4(float64(d) / 1e3 / float64(n))
		return &v
	}
	if withGateway && a.gwOK && z.gwOK {
		p.GatewayCPUUs = us(z.gw - a.gw)
	}
	if a.upOK && z.upOK {
		p.UpstreamCPUUs = us(z.up - a.up)
	}
	if a.selfOK && z.selfOK {
		p.LoadGenCPUUs = us(z.self - a.self)
	}
	if a.machineOK && z.machineOK && z.total > a.total {
		total := float64(z.total - a.total)
		v := round4(100 * float64(z.busy-a.busy) / total)
		p.MachineBusyPerc = &v
		ours := (z.gw - a.gw) + (z.up - a.up) + (z.self - a.self) // zero where unknown
		ticks := float64(ours) / float64(time.Second/clockTicksPerSec)
		others := round4(max(0, 100*(float64(z.busy-a.busy)-ticks)/total))
		p.OthersBusyPerc = &others
	}
}

// throughput runs one level: each side warms up and then runs a closed loop
// for the duration; the side that goes first alternates between levels.
// With a floor (the bare proxy) it runs a third side, whose CPU is the proxy's.
func (b *bench) throughput(ctx context.Context, name string, d, g, floor *target, upPID, conc int, gatewayFirst bool) ThroughputResult {
	o := b.o
	t := ThroughputResult{Upstream: name, Concurrency: conc, DurationS: o.duration.Seconds()}
	type side struct {
		name string
		t    *target
		out  *PhaseResult
		pid  int
	}
	sides := []side{{"direct", d, &t.Direct, 0}, {"gateway", g, &t.Gateway, b.gwPID}}
	if floor != nil {
		t.Floor = &PhaseResult{}
		sides = append(sides, side{o.floorKind, floor, t.Floor, b.barePID})
	}
	if gatewayFirst {
		slices.Reverse(sides)
	}
	var order []string
	for _, s := range sides {
		order = append(order, s.name)
		if o.levelWarmup > 0 {
			closedLoop(ctx, b.client, s.t, conc, o.levelWarmup)
		}
		a := takeCPU(s.pid, upPID)
		ph := closedLoop(ctx, b.client, s.t, conc, o.duration)
		z := takeCPU(s.pid, upPID)
		s.out.Latency = summarize(ph.lat, ph.errs)
		s.out.RPS = round4(float64(len(ph.lat)) / ph.elapsed.Seconds())
		perRequest(s.out, a, z, len(ph.lat), s.pid > 0)
		sleep(ctx, o.pause)
	}
	t.Order = strings.Join(order, ",")
	t.Ratio = ratio(t.Gateway.RPS, t.Direct.RPS)
	if t.Floor != nil {
		t.FloorRatio, t.GatewayPerFloor = ratio(t.Floor.RPS, t.Direct.RPS), ratio(t.Gateway.RPS, t.Floor.RPS)
	}
	t.AddedP50Ms = round4(t.Gateway.Latency.P50Ms - t.Direct.Latency.P50Ms)
	t.AddedP99Ms = round4(t.Gateway.Latency.P99Ms - t.Direct.Latency.P99Ms)
	return t
}

// allocs samples go_memstats_mallocs_total around a fixed number of gateway requests.
func (b *bench) allocs(ctx context.Context) AllocResult {
	url := b.o.metrics
	if url == "" {
		url = metricsURL(firstBase(b.gwBase))
	}
	r := AllocResult{URL: url}
	m0, why := scrapeMallocs(b.ctl, url, b.adminToken)
	if why != "" {
		r.Note = why
		return r
	}
	m1, why := scrapeMallocs(b.ctl, url, b.adminToken)
	if why != "" {
		r.Note = why
		return r
	}
	var eg errCounter
	buf := make([]byte, 16<<10)
	ok := 0
	for i := 0; i < b.o.allocRequests && ctx.Err() == nil; i++ {
		if _, kind := do(ctx, b.client, b.instantG, buf); kind == "" {
			ok++
		} else {
			eg.add(kind)
		}
	}
	m2, why := scrapeMallocs(b.ctl, url, b.adminToken)
	if why != "" || ok == 0 {
		r.Note = fmt.Sprintf("%s; %d requests ok, errors: %s", why, ok, describeErrors(eg.kinds()))
		return r
	}
	r.Available, r.Requests = true, ok
	r.PerScrape = round4(m1 - m0)
	r.PerRequest = round4((m2 - m1 - (m1 - m0)) / float64(ok))
	if eg.total() > 0 {
		r.Note = fmt.Sprintf("%d requests failed: %s", eg.total(), describeErrors(eg.kinds()))
	}
	return r
}

// billing reads the key and the balance back, to show billing ran.
func (b *bench) billing() *BillingCheck { return billingOf(b.ctl, b.gwBase, b.gwKey) }

// billingOf reads the key and the balance back through base (…/v1; the
// first of several).
func billingOf(c *http.Client, base, key string) *BillingCheck {
	var k struct {
		Data struct {
			Limit          *int64 `json:"limit"`
			LimitRemaining *int64 `json:"limit_remaining"`
			Usage          int64  `json:"usage"`
		} `json:"data"`
	}
	if !getJSON(c, firstBase(base)+"/key", key, &k) {
		return nil
	}
	bc := &BillingCheck{KeyLimit: k.Data.Limit, KeyUsage: k.Data.Usage, KeyLimitRemaining: k.Data.LimitRemaining}
	var cr struct {
		Data struct {
			Total *int64 `json:"balance_credits"`
		} `json:"data"`
	}
	if getJSON(c, firstBase(base)+"/credits", key, &cr) {
		bc.BalanceCredits = cr.Data.Total
	}
	return bc
}
