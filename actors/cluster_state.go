package actors

import (
	"context"
	"sort"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Activation is an account activation on this node and the epoch it claimed.
type Activation struct {
	Account string `json:"account"`
	Epoch   int64  `json:"epoch"`
}

// ClusterState is what this node knows of its cluster.
type ClusterState struct {
	Self          string          `json:"self"` // this node's member id; "" without a lease
	Live          bool            `json:"lease_live"`
	DurableSettle bool            `json:"durable_settle"`
	Members       []shlyuz.Member `json:"members"`
	Activations   []Activation    `json:"activations"`
	// Calls of accounts served on other nodes since this node started:
	// reserved from this node's slices (their one cross-node round trip is
	// the settlement), and reserved at the owner (two).
	SliceReservations  int64 `json:"slice_reservations"`
	RemoteReservations int64 `json:"remote_reservations"`
	// Durable settlements sent to other nodes (one remote message each);
	// the messages that carried this node's acknowledgements of other
	// nodes' settlements, and those acknowledgements.
	RemoteSettlements int64 `json:"remote_settlements"`
	AckMessages       int64 `json:"ack_messages"`
	Acks              int64 `json:"acks"`
}

// Cluster reports the live members and this node's account activations.
func (g *Gateway) Cluster(ctx context.Context) (*ClusterState, error) {
	st := &ClusterState{Live: g.Live(), DurableSettle: g.durable, Members: []shlyuz.Member{}, Activations: []Activation{},
		SliceReservations: g.slices.local.Load(), RemoteReservations: g.slices.remote.Load(),
		RemoteSettlements: g.remoteSettles.Load(), AckMessages: g.journal.acks.sent.Load(), Acks: g.journal.acks.acks.Load()}
	if g.lease != nil {
		st.Self = g.lease.ID()
	}
	ms, err := g.store.Members(ctx, g.now())
	if err != nil {
		return nil, err
	}
	if ms != nil {
		st.Members = ms
	}
	g.active.Range(func(k, v any) bool {
		st.Activations = append(st.Activations, Activation{Account: k.(string), Epoch: v.(activation).epoch})
		return true
	})
	sort.Slice(st.Activations, func(i, j int) bool { return st.Activations[i].Account < st.Activations[j].Account })
	return st, nil
}

// Live says whether this node may grant (its lease is live, or it has none).
func (g *Gateway) Live() bool { return g.lease == nil || g.lease.Live() }
