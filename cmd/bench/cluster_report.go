package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// ClusterResults is every number of a -cluster run; written as JSON (-out)
// and printed as markdown.
type ClusterResults struct {
	Run
	Rounds     int                `json:"rounds"`
	Requests   int                `json:"requests_per_side_c1"`
	Block      int                `json:"block"`
	DurationS  float64            `json:"duration_s"`
	Credits    int64              `json:"credits"`
	KeyCeiling int64              `json:"key_ceiling"`
	Direct     ClusterSetupInfo   `json:"direct"`
	Setups     []ClusterSetupInfo `json:"setups"` // the first is the single node every ratio refers to
	Results    []ClusterRound     `json:"per_round"`
	Summary    []ClusterSummary   `json:"summary"` // direct first, then the setups
}

// ClusterSetupInfo is what one side of the comparison was.
type ClusterSetupInfo struct {
	Name          string        `json:"name"`
	Mode          string        `json:"mode,omitempty"` // cluster.mode: single or sql
	Nodes         int           `json:"nodes,omitempty"`
	URLs          []string      `json:"urls"`
	PIDs          []int         `json:"pids,omitempty"`
	Schema        string        `json:"schema,omitempty"`
	DurableSettle []bool        `json:"durable_settle,omitempty"` // as each node reported it
	Billing       *BillingCheck `json:"billing,omitempty"`
}

// ClusterRound is one round: the added latency at concurrency 1 (direct and
// the setups in rotating blocks) and a closed loop per level and side.
type ClusterRound struct {
	Round   int            `json:"round"`
	Latency ClusterLatency `json:"latency_c1"`
	Levels  []ClusterLevel `json:"throughput"`
}

// ClusterLatency is a round's concurrency-1 scenario.
type ClusterLatency struct {
	Direct Summary        `json:"direct"`
	Setups []SetupLatency `json:"setups"`
}

// SetupLatency is one setup's latencies and what it adds to direct's.
type SetupLatency struct {
	Setup   string  `json:"setup"`
	Gateway Summary `json:"gateway"`
	Added   Added   `json:"added"`
}

// ClusterLevel is one concurrency level of a round.
type ClusterLevel struct {
	Upstream    string         `json:"upstream"`
	Concurrency int            `json:"concurrency"`
	Order       string         `json:"order"`
	Direct      PhaseResult    `json:"direct"`
	Setups      []ClusterPhase `json:"setups"`
}

// ClusterPhase is a setup's closed loop. Its gateway CPU is the sum of its
// nodes' CPU time over the requests served; the reservations are the nodes'
// counts of GET /api/admin/cluster over the measured time.
type ClusterPhase struct {
	Setup string `json:"setup"`
	PhaseResult
	OfOneNode          float64 `json:"of_one_node"`
	SliceReservations  *int64  `json:"slice_reservations,omitempty"`
	RemoteReservations *int64  `json:"remote_reservations,omitempty"`
	// Durable settlements sent to another node (a remote message each), and
	// the messages that carried their acknowledgements back.
	RemoteSettlements *int64 `json:"remote_settlements,omitempty"`
	AckMessages       *int64 `json:"ack_messages,omitempty"`
}

// ClusterSummary is a side over the rounds: medians, and the range of its
// per-round ratios to the single node.
type ClusterSummary struct {
	Setup      string         `json:"setup"`
	AddedP50Ms *float64       `json:"added_p50_ms_c1,omitempty"`
	AddedP99Ms *float64       `json:"added_p99_ms_c1,omitempty"`
	Levels     []LevelSummary `json:"throughput"`
	Errors     int            `json:"errors"`
}

// LevelSummary is one level of a ClusterSummary.
type LevelSummary struct {
	Upstream           string   `json:"upstream"`
	Concurrency        int      `json:"concurrency"`
	RPS                float64  `json:"rps"`
	OfOneNode          float64  `json:"of_one_node,omitempty"`
	OfOneNodeMin       float64  `json:"of_one_node_min,omitempty"`
	OfOneNodeMax       float64  `json:"of_one_node_max,omitempty"`
	OfDirect           float64  `json:"of_direct,omitempty"`
	NodeCPUUs          *float64 `json:"node_cpu_us_per_req,omitempty"`
	Requests           int      `json:"requests"`
	SliceReservations  *int64   `json:"slice_reservations,omitempty"`
	RemoteReservations *int64   `json:"remote_reservations,omitempty"`
	RemoteSettlements  *int64   `json:"remote_settlements,omitempty"`
	AckMessages        *int64   `json:"ack_messages,omitempty"`
}

// median of xs (the mean of the middle two for an even count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return round4((s[n/2-1] + s[n/2]) / 2)
}

// summarizeCluster folds the rounds: direct first, then each setup.
func summarizeCluster(r *ClusterResults) []ClusterSummary {
	out := []ClusterSummary{{Setup: r.Direct.Name}}
	for _, s := range r.Setups {
		out = append(out, ClusterSummary{Setup: s.Name})
	}
	for k := range out {
		cs := &out[k]
		var p50, p99 []float64
		for _, rd := range r.Results {
			if k == 0 {
				cs.Errors += rd.Latency.Direct.Errors
			} else {
				l := rd.Latency.Setups[k-1]
				p50, p99 = append(p50, l.Added.P50Ms), append(p99, l.Added.P99Ms)
				cs.Errors += l.Gateway.Errors
			}
		}
		if len(p50) > 0 {
			a, b := median(p50), median(p99)
			cs.AddedP50Ms, cs.AddedP99Ms = &a, &b
		}
		if len(r.Results) == 0 {
			continue
		}
		for li, lv0 := range r.Results[0].Levels {
			ls := LevelSummary{Upstream: lv0.Upstream, Concurrency: lv0.Concurrency}
			var rps, ofOne, ofDirect, cpu []float64
			var slice, remote, settlements, ackMsgs int64
			resOK, settleOK := true, true
			for _, rd := range r.Results {
				if li >= len(rd.Levels) {
					continue
				}
				lv := rd.Levels[li]
				p := ClusterPhase{PhaseResult: lv.Direct}
				if k > 0 {
					p = lv.Setups[k-1]
					ofOne = append(ofOne, p.OfOneNode)
					if p.GatewayCPUUs != nil {
						cpu = append(cpu, *p.GatewayCPUUs)
					}
					if p.SliceReservations != nil && p.RemoteReservations != nil {
						slice, remote = slice+*p.SliceReservations, remote+*p.RemoteReservations
						if p.RemoteSettlements != nil && p.AckMessages != nil {
							settlements, ackMsgs = settlements+*p.RemoteSettlements, ackMsgs+*p.AckMessages
						} else {
							settleOK = false
						}
					} else {
						resOK = false
					}
				}
				rps = append(rps, p.RPS)
				if lv.Direct.RPS > 0 {
					ofDirect = append(ofDirect, p.RPS/lv.Direct.RPS)
				}
				ls.Requests += p.Latency.Count
				cs.Errors += p.Latency.Errors
			}
			ls.RPS, ls.OfDirect = median(rps), round4(median(ofDirect))
			if len(ofOne) > 0 {
				ls.OfOneNode, ls.OfOneNodeMin, ls.OfOneNodeMax = median(ofOne), slices.Min(ofOne), slices.Max(ofOne)
			}
			if len(cpu) > 0 {
				c := median(cpu)
				ls.NodeCPUUs = &c
			}
			if k > 0 && resOK {
				ls.SliceReservations, ls.RemoteReservations = &slice, &remote
				if settleOK {
					ls.RemoteSettlements, ls.AckMessages = &settlements, &ackMsgs
				}
			}
			cs.Levels = append(cs.Levels, ls)
		}
	}
	return out
}

// ratioCell is "0.78 (0.75–0.81)", or "0.78" when the rounds agree.
func ratioCell(l LevelSummary) string {
	if l.OfOneNodeMin == l.OfOneNodeMax {
		return fmt.Sprintf("%.2f", l.OfOneNode)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", l.OfOneNode, l.OfOneNodeMin, l.OfOneNodeMax)
}

// reservationCell is "6761 / 53 (0.67 round trips a call; 6814 settlements,
// 900 acknowledgement messages, 0.55 remote messages a call)" over every
// level: a round trip is a call's wait on another node, a remote message one
// request or answer between nodes (a remote reservation's two, a
// settlement's one, and the messages that carry the acknowledgements of a
// commit's settlements back to each node).
func reservationCell(s ClusterSummary) string {
	var slice, remote, settlements, ackMsgs int64
	reqs, counted := 0, true // counted: every level has the settlements' counts (nodes that report them)
	for _, l := range s.Levels {
		if l.SliceReservations == nil || l.RemoteReservations == nil {
			return "n/a"
		}
		slice, remote, reqs = slice+*l.SliceReservations, remote+*l.RemoteReservations, reqs+l.Requests
		if l.RemoteSettlements != nil && l.AckMessages != nil {
			settlements, ackMsgs = settlements+*l.RemoteSettlements, ackMsgs+*l.AckMessages
		} else {
			counted = false
		}
	}
	if reqs == 0 {
		return fmt.Sprintf("%d / %d", slice, remote)
	}
	if !counted {
		return fmt.Sprintf("%d / %d (%.2f round trips a call)", slice, remote, float64(slice+2*remote)/float64(reqs))
	}
	return fmt.Sprintf("%d / %d (%.2f round trips a call; %d settlements, %d acknowledgement messages, %.2f remote messages a call)", slice, remote,
		float64(slice+2*remote)/float64(reqs), settlements, ackMsgs, float64(2*remote+settlements+ackMsgs)/float64(reqs))
}

// writeClusterMarkdown prints the comparison: the summary table, then each round.
func writeClusterMarkdown(w io.Writer, r *ClusterResults) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	n := 0
	if len(r.Setups) > 1 {
		n = r.Setups[1].Nodes
	}
	p("# Shlyuz cluster: one node against %d nodes in sql mode (PostgreSQL)\n\n", n)
	m := r.Machine
	p("- machine: %d × %s (GOMAXPROCS %d), %s, %s; everything (load generator, fakes, PostgreSQL, nodes) on it\n", m.NProc, m.CPUModel, m.GOMAXPROCS, m.OSArch, m.GoVersion)
	p("- load average (1/5/15 min): %s at start, %s at end\n", m.LoadAvgStart, m.LoadAvgEnd)
	p("- when: %s\n", r.when())
	p("- each setup on a fresh schema of its own, one account and key each; billing on, key ceiling %d credits/month; durable settlement: %s\n", r.KeyCeiling, durableCell(r.Setups))
	p("- %d rounds taking the setups in turn; concurrency 1: %d requests per side in rotating blocks of %d with direct; closed loops %s s per side; medians of the rounds (range of the rounds' ratios in parentheses); times in ms\n\n",
		r.Rounds, r.Requests, r.Block, trimFloat(r.DurationS))
	if len(r.Summary) == 0 {
		return
	}
	levels := r.Summary[0].Levels
	p("| setup | added p50 / p99, c=1 |")
	for _, l := range levels {
		p(" %s c%d req/s | of one node |", l.Upstream, l.Concurrency)
	}
	p(" node CPU µs/req (%s) | slice / remote reservations | errors |\n|---|---:|", levelNames(levels))
	for range levels {
		p("---:|---:|")
	}
	p("---:|---|---:|\n")
	for _, s := range r.Summary {
		lat := ""
		if s.AddedP50Ms != nil {
			lat = s3(*s.AddedP50Ms) + " / " + s3(*s.AddedP99Ms)
		}
		p("| %s | %s |", s.Setup, lat)
		var cpu []string
		for _, l := range s.Levels {
			of := ""
			if s.AddedP50Ms != nil {
				of = ratioCell(l)
			}
			p(" %.0f | %s |", l.RPS, of)
			cpu = append(cpu, optUs(l.NodeCPUUs))
		}
		res, cpus := "", ""
		if s.AddedP50Ms != nil {
			res, cpus = reservationCell(s), strings.Join(cpu, " · ")
		}
		p(" %s | %s | %d |\n", cpus, res, s.Errors)
	}
	p("\nPer round (req/s, of one node in parentheses; added p50 / p99 at c=1):\n\n| round | setup | added, c=1 |")
	for _, l := range levels {
		p(" %s c%d |", l.Upstream, l.Concurrency)
	}
	p("\n|---:|---|---:|%s\n", strings.Repeat("---:|", len(levels)))
	for _, rd := range r.Results {
		p("| %d | direct | |", rd.Round)
		for _, lv := range rd.Levels {
			p(" %.0f |", lv.Direct.RPS)
		}
		p("\n")
		for k, l := range rd.Latency.Setups {
			p("| %d | %s | %s / %s |", rd.Round, l.Setup, s3(l.Added.P50Ms), s3(l.Added.P99Ms))
			for _, lv := range rd.Levels {
				p(" %.0f (%.2f) |", lv.Setups[k].RPS, lv.Setups[k].OfOneNode)
			}
			p("\n")
		}
	}
	p("\n")
	for _, s := range r.Setups {
		if b := s.Billing; b != nil {
			p("Billing check, %s: the key spent %d credits.\n", s.Name, b.KeyUsage)
		}
	}
}

// levelNames is "slow c64 · instant c64".
func levelNames(ls []LevelSummary) string {
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%s c%d", l.Upstream, l.Concurrency))
	}
	return strings.Join(out, " · ")
}

// durableCell says whether every node reported durable settlement on.
func durableCell(setups []ClusterSetupInfo) string {
	on, all := 0, 0
	for _, s := range setups {
		for _, d := range s.DurableSettle {
			all++
			if d {
				on++
			}
		}
	}
	switch {
	case all == 0:
		return "unknown"
	case on == all:
		return fmt.Sprintf("on (all %d nodes)", all)
	}
	return fmt.Sprintf("on at %d of %d nodes", on, all)
}
