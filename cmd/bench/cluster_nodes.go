package main

import (
	"context"
	"fmt"
	"strings"
)

// clusterSetup is one side of -cluster: a single-mode node, or -cluster
// sql-mode nodes sharing a schema, with an account and key of its own.
type clusterSetup struct {
	name          string
	mode          string // "single" or "sql"
	nodes         []*child
	roots         []string // http://HOST:PORT of each node
	key           string
	instant, slow *target // the nodes take turns
	durable       []bool  // durable_settle as each node reports it
	profiled      bool    // its nodes' CPU profiles are taken (-cpuprofile)
}

func (s *clusterSetup) pids() []int {
	out := make([]int, len(s.nodes))
	for i, c := range s.nodes {
		out[i] = c.pid()
	}
	return out
}

// bases is the nodes' …/api/v1 bases, comma-separated (-target's form).
func (s *clusterSetup) bases() string {
	out := make([]string, len(s.roots))
	for i, r := range s.roots {
		out[i] = r + "/api/v1"
	}
	return strings.Join(out, ",")
}

// clusterState is what GET /api/admin/cluster says that -cluster reads.
type clusterState struct {
	DurableSettle      bool  `json:"durable_settle"`
	Members            []any `json:"members"`
	SliceReservations  int64 `json:"slice_reservations"`
	RemoteReservations int64 `json:"remote_reservations"`
	RemoteSettlements  int64 `json:"remote_settlements"`
	AckMessages        int64 `json:"ack_messages"`
}

// startSetup starts the nodes of one setup on the schema dsn (sql mode when
// n > 1, each node's actor port a free one), waits until each sees all n
// members, creates the account and key through the first node and sends a
// request of each kind to every node. Started nodes are added to *children
// even on an error, so the caller stops them.
func (b *bench) startSetup(ctx context.Context, name, dsn, cfgPath, token string, n int, children *[]*child) (*clusterSetup, error) {
	o := b.o
	s := &clusterSetup{name: name, mode: "single"}
	var env []string
	if n > 1 {
		s.mode = "sql"
		env = []string{"SHLYUZ_CLUSTER_MODE=sql", "SHLYUZ_CLUSTER_LISTEN=127.0.0.1:0"}
	}
	for i := 1; i <= n; i++ {
		nodeName := fmt.Sprintf("%s-node%d", s.mode, i)
		c, root, err := b.startNode(ctx, nodeName, dsn, cfgPath, token, env...)
		if c != nil {
			*children = append(*children, c)
		}
		if err != nil {
			return nil, err
		}
		s.nodes, s.roots = append(s.nodes, c), append(s.roots, root)
		b.logf("%s: pid %d on %s (%s mode)", nodeName, c.pid(), root, s.mode)
	}
	for i, root := range s.roots {
		var st clusterState
		err := waitReady(ctx, s.nodes[i], o.startupTimeout, fmt.Sprintf("%s to see %d members", s.nodes[i].name, n), func() bool {
			return getJSON(b.ctl, root+"/api/admin/cluster", token, &st) && len(st.Members) == n
		})
		if err != nil {
			return nil, err
		}
		s.durable = append(s.durable, st.DurableSettle)
	}
	_, key, err := setupAccount(ctx, b.ctl, s.roots[0], token, o.credits, o.keyCeiling)
	if err != nil {
		return nil, fmt.Errorf("%s: account set-up: %w\n%s's log ends:\n%s", name, err, s.nodes[0].name, s.nodes[0].tail(20))
	}
	s.key = key
	for _, root := range s.roots {
		for _, model := range []string{o.modelInstant, o.modelSlow} {
			if err := b.probe(ctx, newTarget(root+"/api/v1", key, model, false, o.maxTokens)); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	s.instant = newTarget(s.bases(), key, o.modelInstant, false, o.maxTokens)
	s.slow = newTarget(s.bases(), key, o.modelSlow, false, o.maxTokens)
	return s, nil
}

// crossCounts are the nodes' counts of calls of accounts served elsewhere,
// summed over the nodes.
type crossCounts struct{ slice, remote, settlements, ackMsgs int64 }

// reservations sums the nodes' slice_reservations, remote_reservations,
// remote_settlements and ack_messages; ok is false when a node does not
// answer them.
func (b *bench) reservations(s *clusterSetup, token string) (c crossCounts, ok bool) {
	for _, root := range s.roots {
		var st clusterState
		if !getJSON(b.ctl, root+"/api/admin/cluster", token, &st) {
			return crossCounts{}, false
		}
		c.slice, c.remote = c.slice+st.SliceReservations, c.remote+st.RemoteReservations
		c.settlements, c.ackMsgs = c.settlements+st.RemoteSettlements, c.ackMsgs+st.AckMessages
	}
	return c, true
}
