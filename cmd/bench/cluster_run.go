package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// runCluster is -cluster: after the fakes are up it starts a single-mode
// node and -cluster sql-mode nodes on two fresh schemas, then measures them
// in -rounds that take the two setups in turn, and prints and writes the
// comparison. children collects every process started (the caller stops them).
func (b *bench) runCluster(ctx context.Context, schemas *clusterSchemas, instantURL, slowURL string, children *[]*child, stdout io.Writer) error {
	o := b.o
	cfgPath, _, err := b.writeConfig(b.upstreams(instantURL, slowURL, ""))
	if err != nil {
		return err
	}
	token := randomHex(16)
	one, err := b.startSetup(ctx, "1 node", schemas.dsn(0), cfgPath, token, 1, children)
	if err != nil {
		return err
	}
	many, err := b.startSetup(ctx, fmt.Sprintf("%d nodes", o.cluster), schemas.dsn(1), cfgPath, token, o.cluster, children)
	if err != nil {
		return err
	}
	setups := []*clusterSetup{one, many}

	res := &ClusterResults{Run: b.res.Run,
		Rounds: o.rounds, Requests: o.n, Block: o.block, DurationS: o.duration.Seconds(), Credits: o.credits, KeyCeiling: o.keyCeiling,
		Direct: ClusterSetupInfo{Name: "direct", URLs: []string{instantURL, slowURL}}}
	for i, s := range setups {
		res.Setups = append(res.Setups, ClusterSetupInfo{Name: s.name, Mode: s.mode, Nodes: len(s.nodes), URLs: strings.Split(s.bases(), ","),
			PIDs: s.pids(), Schema: schemas.names[i], DurableSettle: s.durable})
	}

	instantD := newTarget(instantURL, o.directKey, o.directModelFor(o.modelInstant), false, o.maxTokens)
	slowD := newTarget(slowURL, o.directKey, o.directModelFor(o.modelSlow), false, o.maxTokens)
	if o.warmup > 0 {
		b.logf("warm-up: %d requests per side at concurrency 1", o.warmup)
		interleave(ctx, b.client, []*target{instantD, one.instant, many.instant}, o.warmup, o.block)
	}
	type level struct {
		upstream string
		direct   *target
		conc     int
	}
	var levels []level
	for _, c := range o.levelList {
		levels = append(levels, level{"slow", slowD, c})
	}
	if o.instantConc > 0 {
		levels = append(levels, level{"instant", instantD, o.instantConc})
	}
	for r := range o.rounds {
		round := ClusterRound{Round: r + 1}
		b.logf("round %d of %d: added latency, %d requests per side at concurrency 1", r+1, o.rounds, o.n)
		sides := []*target{instantD, one.instant, many.instant}
		if r%2 == 1 {
			sides = []*target{instantD, many.instant, one.instant}
		}
		lats, errs := interleave(ctx, b.client, sides, o.n, o.block)
		if r%2 == 1 {
			lats[1], lats[2], errs[1], errs[2] = lats[2], lats[1], errs[2], errs[1]
		}
		round.Latency.Direct = summarize(lats[0], errs[0])
		for i, s := range setups {
			g := summarize(lats[i+1], errs[i+1])
			round.Latency.Setups = append(round.Latency.Setups, SetupLatency{Setup: s.name, Gateway: g, Added: added(round.Latency.Direct, g)})
		}
		for li, l := range levels {
			lv := ClusterLevel{Upstream: l.upstream, Concurrency: l.conc}
			phases := make([]ClusterPhase, len(setups))
			type side struct {
				name string
				run  func()
			}
			order := []side{{"direct", func() { lv.Direct = b.clusterPhase(ctx, l.direct, nil, b.fakePID[l.upstream], l.conc, "").PhaseResult }}}
			for i, s := range setups {
				t := s.instant
				if l.upstream == "slow" {
					t = s.slow
				}
				order = append(order, side{s.name, func() { phases[i] = b.clusterPhase(ctx, t, s, b.fakePID[l.upstream], l.conc, token) }})
			}
			if (r+li)%2 == 1 {
				slices.Reverse(order)
			}
			var names []string
			for _, sd := range order {
				b.logf("round %d of %d: %s, %s upstream, concurrency %d, %s", r+1, o.rounds, sd.name, l.upstream, l.conc, o.duration)
				sd.run()
				names = append(names, sd.name)
			}
			lv.Order = strings.Join(names, ",")
			for i := range phases {
				if base := phases[0].RPS; base > 0 {
					phases[i].OfOneNode = round4(phases[i].RPS / base)
				}
			}
			lv.Setups = phases
			round.Levels = append(round.Levels, lv)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		res.Results = append(res.Results, round)
		b.logf("round %d: %s", r+1, roundLine(round))
	}
	for i, s := range setups {
		res.Setups[i].Billing = billingOf(b.ctl, s.bases(), s.key)
	}
	res.Summary = summarizeCluster(res)
	b.finish(&res.Run)
	if o.out != "" {
		if err := writeJSON(o.out, res); err != nil {
			return err
		}
		b.logf("wrote %s", o.out)
	}
	if o.keep {
		b.logf("logs of the nodes: %s", filepath.Join(b.tmp, "*-node*.log"))
	}
	writeClusterMarkdown(stdout, res)
	return nil
}

// clusterPhase is one closed loop of a side after its warm-up: req/s, the
// latencies, and for a setup its nodes' CPU per request (their sum over the
// requests served) and the reservations they made meanwhile.
func (b *bench) clusterPhase(ctx context.Context, t *target, s *clusterSetup, upPID, conc int, token string) ClusterPhase {
	o := b.o
	var p ClusterPhase
	var pids []int
	if s != nil {
		p.Setup, pids = s.name, s.pids()
	}
	if o.levelWarmup > 0 {
		closedLoop(ctx, b.client, t, conc, o.levelWarmup)
	}
	var c0 crossCounts
	resOK := false
	if s != nil {
		c0, resOK = b.reservations(s, token)
	}
	var profiled []func()
	if s != nil && o.cpuProfile != "" && t == s.instant && !s.profiled {
		s.profiled = true // the first instant loop of each setup
		for i, root := range s.roots {
			name := fmt.Sprintf("%s-node%d-instant", strings.ReplaceAll(s.name, " ", ""), i+1)
			profiled = append(profiled, b.profileAt(ctx, root, token, name, int(o.duration/time.Second)))
		}
	}
	a := takeCPUs(pids, upPID)
	ph := closedLoop(ctx, b.client, t, conc, o.duration)
	z := takeCPUs(pids, upPID)
	for _, wait := range profiled {
		wait()
	}
	if s != nil && resOK {
		if c1, ok := b.reservations(s, token); ok {
			sl, rm, st, bt := c1.slice-c0.slice, c1.remote-c0.remote, c1.settlements-c0.settlements, c1.ackMsgs-c0.ackMsgs
			p.SliceReservations, p.RemoteReservations, p.RemoteSettlements, p.AckMessages = &sl, &rm, &st, &bt
		}
	}
	p.Latency = summarize(ph.lat, ph.errs)
	p.RPS = round4(float64(len(ph.lat)) / ph.elapsed.Seconds())
	perRequest(&p.PhaseResult, a, z, len(ph.lat), s != nil)
	sleep(ctx, o.pause)
	return p
}

// roundLine is a round's progress line: each setup's req/s per level.
func roundLine(r ClusterRound) string {
	var parts []string
	for _, lv := range r.Levels {
		part := fmt.Sprintf("%s c%d direct %.0f", lv.Upstream, lv.Concurrency, lv.Direct.RPS)
		for _, p := range lv.Setups {
			part += fmt.Sprintf(", %s %.0f (%.2f)", p.Setup, p.RPS, p.OfOneNode)
		}
		parts = append(parts, part+" req/s")
	}
	return strings.Join(parts, "; ")
}
