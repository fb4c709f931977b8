package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestParseClusterFlags(t *testing.T) {
	const pg = "postgres://u:hunter2@127.0.0.1:5432/db"
	cases := []struct {
		name    string
		args    []string
		cluster int
		rounds  int
		wantErr string
	}{
		{"off by default", nil, 0, 2, ""},
		{"three nodes", []string{"-cluster", "3", "-db", pg}, 3, 2, ""},
		{"postgresql scheme and rounds", []string{"-cluster", "2", "-rounds", "4", "-db", "postgresql://127.0.0.1/db"}, 2, 4, ""},
		{"needs a database", []string{"-cluster", "3"}, 0, 0, "-cluster needs -db postgres://"},
		{"not on SQLite", []string{"-cluster", "3", "-db", "sqlite:///tmp/x.db"}, 0, 0, "-cluster needs -db postgres://"},
		{"one node is no cluster", []string{"-cluster", "1", "-db", pg}, 0, 0, "-cluster must be from 2 to 16"},
		{"too many nodes", []string{"-cluster", "17", "-db", pg}, 0, 0, "-cluster must be from 2 to 16"},
		{"no rounds", []string{"-cluster", "3", "-rounds", "0", "-db", pg}, 0, 0, "-rounds must be from 1 to 100"},
		{"not with -only-prompts", []string{"-cluster", "3", "-only-prompts", "-db", pg}, 0, 0, "-only-prompts"},
		{"not with -target", []string{"-cluster", "3", "-db", pg, "-target", "http://127.0.0.1:1/v1", "-target-key", "k"}, 0, 0, "-db is for the built-in gateway"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := parseFlags(c.args, io.Discard)
			switch {
			case c.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case o.cluster != c.cluster || o.rounds != c.rounds:
				t.Fatalf("cluster %d rounds %d, want %d and %d", o.cluster, o.rounds, c.cluster, c.rounds)
			case strings.Contains(o.params["db"], "hunter2"):
				t.Fatalf("password in params: %s", o.params["db"])
			}
		})
	}
}

func TestMedian(t *testing.T) {
	cases := []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{0.9, 0.7}, 0.8},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, c := range cases {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

// clusterFixture is two rounds of one node against three, numbers chosen by hand.
func clusterFixture() *ClusterResults {
	i64 := func(v int64) *int64 { return &v }
	f := func(v float64) *float64 { return &v }
	phase := func(setup string, rps, of, cpu float64, count int, slice, remote *int64) ClusterPhase {
		return ClusterPhase{Setup: setup, PhaseResult: PhaseResult{RPS: rps, Latency: Summary{Count: count}, GatewayCPUUs: f(cpu)},
			OfOneNode: of, SliceReservations: slice, RemoteReservations: remote}
	}
	round := func(n int, add1, add3 float64, one, three ClusterPhase, errs int) ClusterRound {
		return ClusterRound{Round: n,
			Latency: ClusterLatency{Setups: []SetupLatency{
				{Setup: "1 node", Added: Added{P50Ms: add1, P99Ms: 4 * add1}},
				{Setup: "3 nodes", Added: Added{P50Ms: add3, P99Ms: 4 * add3}, Gateway: Summary{Errors: errs}},
			}},
			Levels: []ClusterLevel{{Upstream: "instant", Concurrency: 64, Direct: PhaseResult{RPS: 4000, Latency: Summary{Count: 12000}},
				Setups: []ClusterPhase{one, three}}}}
	}
	return &ClusterResults{Rounds: 2, Requests: 300, Block: 50, DurationS: 3, KeyCeiling: 5000,
		Direct: ClusterSetupInfo{Name: "direct"},
		Setups: []ClusterSetupInfo{{Name: "1 node", Mode: "single", Nodes: 1, DurableSettle: []bool{true}},
			{Name: "3 nodes", Mode: "sql", Nodes: 3, DurableSettle: []bool{true, true, true}}},
		Results: []ClusterRound{
			round(1, 1, 3, phase("1 node", 2000, 1, 300, 6000, i64(0), i64(0)), phase("3 nodes", 1400, 0.7, 800, 4500, i64(3000), i64(100)), 0),
			round(2, 2, 4, phase("1 node", 1000, 1, 500, 3000, i64(0), i64(0)), phase("3 nodes", 900, 0.9, 1000, 2700, i64(1800), i64(50)), 2),
		}}
}

func TestClusterSummaryAndTable(t *testing.T) {
	r := clusterFixture()
	r.Summary = summarizeCluster(r)
	if len(r.Summary) != 3 {
		t.Fatalf("%d rows, want direct and two setups", len(r.Summary))
	}
	three := r.Summary[2]
	l := three.Levels[0]
	switch {
	case *three.AddedP50Ms != 3.5 || *three.AddedP99Ms != 14:
		t.Fatalf("added %v / %v, want medians 3.5 / 14", *three.AddedP50Ms, *three.AddedP99Ms)
	case l.RPS != 1150 || l.OfOneNode != 0.8 || l.OfOneNodeMin != 0.7 || l.OfOneNodeMax != 0.9:
		t.Fatalf("req/s %v of one node %v (%v–%v), want 1150, 0.8 (0.7–0.9)", l.RPS, l.OfOneNode, l.OfOneNodeMin, l.OfOneNodeMax)
	case *l.NodeCPUUs != 900 || *l.SliceReservations != 4800 || *l.RemoteReservations != 150 || l.Requests != 7200:
		t.Fatalf("cpu %v, reservations %d / %d over %d requests", *l.NodeCPUUs, *l.SliceReservations, *l.RemoteReservations, l.Requests)
	case three.Errors != 2 || r.Summary[0].Levels[0].RPS != 4000 || r.Summary[0].AddedP50Ms != nil:
		t.Fatalf("errors %d, direct %+v", three.Errors, r.Summary[0])
	}
	var out bytes.Buffer
	writeClusterMarkdown(&out, r)
	for _, want := range []string{
		"# Shlyuz cluster: one node against 3 nodes in sql mode (PostgreSQL)",
		"durable settlement: on (all 4 nodes)",
		"| setup | added p50 / p99, c=1 | instant c64 req/s | of one node | node CPU µs/req (instant c64) | slice / remote reservations | errors |",
		"| direct |  | 4000 |  |  |  | 0 |",
		"| 1 node | +1.500 / +6.000 | 1500 | 1.00 | 400 | 0 / 0 (0.00 round trips a call) | 0 |",
		"| 3 nodes | +3.500 / +14.000 | 1150 | 0.80 (0.70–0.90) | 900 | 4800 / 150 (0.71 round trips a call) | 2 |", // (4800+300)/7200
		"| 2 | 3 nodes | +4.000 / +16.000 | 900 (0.90) |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// An unreachable PostgreSQL is one plain line without the password.
func TestPGUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	err = pgReachable(context.Background(), "postgres://u:hunter2@"+addr+"/db?sslmode=disable")
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Contains(msg, "hunter2") || !strings.Contains(msg, "unreachable: ") || !strings.Contains(msg, "refused") {
		t.Fatalf("%q", msg)
	}
}

// createSchemas makes schemas that the DSNs select, and drop removes them.
func TestCreateSchemas(t *testing.T) {
	base := os.Getenv("SHLYUZ_TEST_POSTGRES")
	if base == "" {
		t.Skip("SHLYUZ_TEST_POSTGRES is not set")
	}
	ctx := context.Background()
	s, err := createSchemas(ctx, base, "bench_test_"+randomHex(4), 2)
	if err != nil {
		t.Fatal(err)
	}
	names := append([]string(nil), s.names...)
	defer s.drop()
	for i, name := range names {
		conn, err := pgx.Connect(ctx, s.dsn(i))
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = conn.QueryRow(ctx, "SELECT current_schema()").Scan(&got)
		conn.Close(ctx)
		if err != nil || got != name {
			t.Fatalf("schema %q of dsn %d, want %q (%v)", got, i, name, err)
		}
	}
	if err := s.drop(); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = ANY($1)", names).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d schemas left after drop (%v)", left, err)
	}
}

// TestReservationCell: the round trips a call are a slice reservation's one
// and a remote reservation's two; the remote messages a call add each
// settlement and acknowledgement message, when every level counts them.
func TestReservationCell(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	counted := LevelSummary{Requests: 30, SliceReservations: n(10), RemoteReservations: n(5), RemoteSettlements: n(20), AckMessages: n(4)}
	uncounted := LevelSummary{Requests: 10, SliceReservations: n(0), RemoteReservations: n(0)}
	for _, tc := range []struct {
		name   string
		levels []LevelSummary
		want   string
	}{
		// (10 + 2·5) / 40 = 0.50 round trips; (2·5 + 20 + 4) / 40 = 0.85 messages.
		{"counted", []LevelSummary{counted, {Requests: 10, SliceReservations: n(0), RemoteReservations: n(0), RemoteSettlements: n(0), AckMessages: n(0)}},
			"10 / 5 (0.50 round trips a call; 20 settlements, 4 acknowledgement messages, 0.85 remote messages a call)"},
		{"a level without settlements", []LevelSummary{counted, uncounted}, "10 / 5 (0.50 round trips a call)"},
		{"a level without reservations", []LevelSummary{counted, {Requests: 10}}, "n/a"},
		{"no requests", []LevelSummary{{SliceReservations: n(3), RemoteReservations: n(1)}}, "3 / 1"},
	} {
		if got := reservationCell(ClusterSummary{Levels: tc.levels}); got != tc.want {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
}
