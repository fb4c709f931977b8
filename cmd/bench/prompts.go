package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Scenario 7: large contexts. For each prompt size the same non-streamed
// request goes to the instant upstream directly, through the bare proxy and
// through the gateway: at concurrency 1 in rotating blocks (the three sides
// take turns going first), then in a closed loop at -prompt-conc per side.
// The prompt is English prose and code (its newlines JSON-escaped), the
// context a coding agent sends; "short" is scenario 1's request.

// promptSize is one size of scenario 7: chars of prompt text (0: short).
type promptSize struct {
	name  string
	chars int
}

// parsePromptSizes reads "short,1KB,150KB,1MB": KB and MB are thousands and
// millions of characters.
func parsePromptSizes(s string) ([]promptSize, error) {
	var sizes []promptSize
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if f == "short" {
			sizes = append(sizes, promptSize{name: f})
			continue
		}
		num, mult := f, 1
		switch {
		case strings.HasSuffix(f, "KB"):
			num, mult = strings.TrimSuffix(f, "KB"), 1000
		case strings.HasSuffix(f, "MB"):
			num, mult = strings.TrimSuffix(f, "MB"), 1000_000
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || n*mult > 32_000_000 {
			return nil, fmt.Errorf("-prompt-sizes: %q is not short or a size like 150KB (at most 32MB)", f)
		}
		sizes = append(sizes, promptSize{name: f, chars: n * mult})
	}
	return sizes, nil
}

const promptText = "The gateway reserves the worst case of a request before it calls the upstream, and settles to the real price " +
	"when the reply ends. A client that sends no max_tokens gets the most its key and balance can pay for.\n\n" +
	"func settle(r *Reservation, u Usage) int64 {\n\tcost := u.PromptTokens*r.Price.Prompt + u.CompletionTokens*r.Price.Completion\n" +
	"\tif cost > r.Held {\n\t\tcost = r.Held\n\t}\n\treturn cost // \"held\" is the ceiling\n}\n\n"

// promptBody is a chat request whose user message is chars characters of
// promptText repeated.
func promptBody(model string, maxTokens, chars int) []byte {
	text := strings.Repeat(promptText, chars/len(promptText)+1)[:chars]
	content, _ := json.Marshal(text)
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"model":%q,"messages":[{"role":"system","content":"You are a careful coding assistant."},{"role":"user","content":%s}],"max_tokens":%d}`,
		model, content, maxTokens)
	return b.Bytes()
}

// PromptResult is scenario 7 at one prompt size.
type PromptResult struct {
	Size          string      `json:"size"`
	PromptChars   int         `json:"prompt_chars"`
	BodyBytes     int         `json:"body_bytes"`
	Requests      int         `json:"requests_per_side"`
	Direct        Summary     `json:"direct"`
	Bare          Summary     `json:"bare_proxy"`
	Gateway       Summary     `json:"gateway"`
	BareAdded     Added       `json:"bare_proxy_added"`
	GatewayAdded  Added       `json:"gateway_added"`
	AddedPerP50   float64     `json:"gateway_added_p50_per_direct_p50"` // the bound: at most 0.25
	Concurrency   int         `json:"concurrency"`
	DurationS     float64     `json:"duration_s"`
	DirectLoop    PhaseResult `json:"direct_loop"`
	BareLoop      PhaseResult `json:"bare_proxy_loop"` // its gateway CPU is the bare proxy's
	GatewayLoop   PhaseResult `json:"gateway_loop"`
	BareRatio     float64     `json:"bare_proxy_ratio"`
	GatewayRatio  float64     `json:"gateway_ratio"` // the bound at 150 KB: at least 0.8
	LoopOrder     string      `json:"loop_order"`
	GatewayLoopMs float64     `json:"gateway_loop_added_p50_ms"`
	// AllocBytes is the gateway's heap allocation per request at concurrency
	// 1 (go_memstats_alloc_bytes_total), and its ratio to the body's size.
	AllocBytes   *float64 `json:"gateway_alloc_bytes_per_request,omitempty"`
	AllocPerBody *float64 `json:"gateway_alloc_per_body_byte,omitempty"`
}

// prompts runs scenario 7 for every size.
func (b *bench) prompts(ctx context.Context, instantURL, bareURL string, model, directModel string) []PromptResult {
	o := b.o
	var out []PromptResult
	for i, size := range o.promptSizes {
		body := requestBody(model, false, o.maxTokens)
		directBody := requestBody(directModel, false, o.maxTokens)
		if size.chars > 0 {
			body, directBody = promptBody(model, o.maxTokens, size.chars), promptBody(directModel, o.maxTokens, size.chars)
		}
		d := newTarget(instantURL, o.directKey, directModel, false, o.maxTokens)
		bp := newTarget(bareURL, o.directKey, directModel, false, o.maxTokens)
		g := newTarget(b.gwBase, b.gwKey, model, false, o.maxTokens)
		d.body, bp.body, g.body = directBody, directBody, body
		sides := []*target{d, bp, g}
		n := o.promptN
		if size.chars >= 500_000 {
			n = max(1, n/3) // a few seconds per side at most
		}
		b.logf("7/7 prompt %s (%d bytes): %d requests per side at concurrency 1, then %s per side at %d", size.name, len(body), n, o.promptDuration, o.promptConc)
		interleave(ctx, b.client, sides, max(1, n/10), o.block)
		heap := b.allocBytes()
		profiled := b.cpuProfile(ctx, "prompt-"+size.name, 2) // the first 2 s of the measured blocks
		lats, errs := interleave(ctx, b.client, sides, n, o.block)
		allocated := heap()
		profiled()
		r := PromptResult{Size: size.name, PromptChars: size.chars, BodyBytes: len(body), Requests: n,
			Direct: summarize(lats[0], errs[0]), Bare: summarize(lats[1], errs[1]), Gateway: summarize(lats[2], errs[2]),
			Concurrency: o.promptConc, DurationS: o.promptDuration.Seconds()}
		r.BareAdded, r.GatewayAdded = added(r.Direct, r.Bare), added(r.Direct, r.Gateway)
		if allocated > 0 && len(lats[2]) > 0 {
			per := round4(allocated / float64(len(lats[2])+errs[2].total()))
			ratio := round4(per / float64(len(body)))
			r.AllocBytes, r.AllocPerBody = &per, &ratio
		}
		if r.Direct.P50Ms > 0 {
			r.AddedPerP50 = round4(r.GatewayAdded.P50Ms / r.Direct.P50Ms)
		}
		if ctx.Err() != nil {
			return out
		}
		b.logf("   c=1 p50: direct %s ms, bare proxy %s, gateway %s (%.2f of direct's p50)", f3(r.Direct.P50Ms), s3(r.BareAdded.P50Ms), s3(r.GatewayAdded.P50Ms), r.AddedPerP50)

		loops := []struct {
			name string
			t    *target
			pid  int
			out  *PhaseResult
		}{{"direct", d, 0, &r.DirectLoop}, {"bare", bp, b.barePID, &r.BareLoop}, {"gateway", g, b.gwPID, &r.GatewayLoop}}
		var order []string
		for k := range loops {
			l := loops[(k+i)%len(loops)]
			order = append(order, l.name)
			closedLoop(ctx, b.client, l.t, o.promptConc, o.levelWarmup/2)
			profiled := func() {}
			if l.name == "gateway" {
				profiled = b.cpuProfile(ctx, fmt.Sprintf("prompt-%s-c%d", size.name, o.promptConc), int(o.promptDuration/time.Second))
			}
			a := takeCPU(l.pid, b.fakePID["instant"])
			ph := closedLoop(ctx, b.client, l.t, o.promptConc, o.promptDuration)
			z := takeCPU(l.pid, b.fakePID["instant"])
			profiled()
			l.out.Latency = summarize(ph.lat, ph.errs)
			l.out.RPS = round4(float64(len(ph.lat)) / ph.elapsed.Seconds())
			perRequest(l.out, a, z, len(ph.lat), l.pid > 0)
			sleep(ctx, o.pause)
		}
		r.LoopOrder = strings.Join(order, ",")
		if r.DirectLoop.RPS > 0 {
			r.BareRatio = round4(r.BareLoop.RPS / r.DirectLoop.RPS)
			r.GatewayRatio = round4(r.GatewayLoop.RPS / r.DirectLoop.RPS)
		}
		r.GatewayLoopMs = round4(r.GatewayLoop.Latency.P50Ms - r.DirectLoop.Latency.P50Ms)
		b.logf("   c=%d: direct %.0f req/s, bare proxy %.2f of it, gateway %.2f", o.promptConc, r.DirectLoop.RPS, r.BareRatio, r.GatewayRatio)
		out = append(out, r)
		if ctx.Err() != nil {
			return out
		}
	}
	return out
}

// allocBytes starts counting the gateway's heap allocations: the returned
// func gives the bytes allocated since, less what a scrape itself costs, or
// 0 when the gateway's /metrics cannot be read.
func (b *bench) allocBytes() func() float64 {
	url := b.o.metrics
	if url == "" {
		url = metricsURL(firstBase(b.gwBase))
	}
	const name = "go_memstats_alloc_bytes_total"
	a0, why0 := scrapeMetric(b.ctl, url, b.adminToken, name)
	a1, why1 := scrapeMetric(b.ctl, url, b.adminToken, name)
	return func() float64 {
		a2, why2 := scrapeMetric(b.ctl, url, b.adminToken, name)
		if why0 != "" || why1 != "" || why2 != "" {
			return 0
		}
		return max(0, a2-a1-(a1-a0))
	}
}

// interleave sends n requests per target at concurrency 1, in blocks, the
// targets taking turns at going first so that drift hits all alike.
func interleave(ctx context.Context, c *http.Client, ts []*target, n, block int) ([][]time.Duration, []errCounter) {
	lats, errs := make([][]time.Duration, len(ts)), make([]errCounter, len(ts))
	buf := make([]byte, 32<<10)
	block = max(1, block)
	for i, done := 0, 0; done < n && ctx.Err() == nil; i++ {
		k := min(block, n-done)
		for j := range ts {
			s := (i + j) % len(ts)
			for range k {
				if ctx.Err() != nil {
					break
				}
				if d, kind := do(ctx, c, ts[s], buf); kind == "" {
					lats[s] = append(lats[s], d)
				} else {
					errs[s].add(kind)
				}
			}
		}
		done += k
	}
	return lats, errs
}
