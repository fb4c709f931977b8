// Package cluster wires the gateway's account and key actors into a
// protoactor cluster. A single node is a cluster of one (the in-memory
// provider); several nodes use the automanaged provider, so adding nodes
// changes configuration, not code. Directory is how the rest reaches the
// cluster's virtual actors.
package cluster

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	pcluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"
)

// Config says how this node joins its cluster.
type Config struct {
	Name string // cluster name; default "shlyuz"
	// Host and Port are where this node's actors are reachable by the others
	// (127.0.0.1 and an ephemeral port for a single node).
	Host string
	Port int
	// Peers are the automanaged health endpoints (host:port) of every node; empty
	// means a one-node cluster. AutoPort is this node's automanaged port.
	Peers    []string
	AutoPort int
	Timeout  time.Duration // one request to a virtual actor; default 10s
}

// Directory is a running cluster member.
type Directory struct {
	c       *pcluster.Cluster
	timeout time.Duration
}

// Start starts this node as a member of the cluster with the given kinds.
func Start(sys *actor.ActorSystem, cfg Config, kinds map[string]actor.Producer) (*Directory, error) {
	if cfg.Name == "" {
		cfg.Name = "shlyuz"
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	var provider pcluster.ClusterProvider
	if len(cfg.Peers) == 0 {
		provider = test.NewTestProvider(test.NewInMemAgent())
	} else {
		if cfg.AutoPort == 0 {
			return nil, fmt.Errorf("cluster: peers are set but the automanaged port is not")
		}
		provider = automanaged.NewWithConfig(2*time.Second, cfg.AutoPort, cfg.Peers...)
	}
	strategy := actor.NewOneForOneStrategy(10, time.Second, actor.DefaultDecider)
	ks := make([]*pcluster.Kind, 0, len(kinds))
	for name, producer := range kinds {
		ks = append(ks, pcluster.NewKind(name, actor.PropsFromProducer(producer, actor.WithSupervisor(strategy))))
	}
	c := pcluster.New(sys, pcluster.Configure(cfg.Name, provider, disthash.New(),
		remote.Configure(cfg.Host, cfg.Port),
		pcluster.WithKinds(ks...), pcluster.WithRequestTimeout(cfg.Timeout)))
	c.StartMember()
	return &Directory{c: c, timeout: cfg.Timeout}, nil
}

// Request asks the virtual actor (identity, kind) and waits for its answer.
func (d *Directory) Request(identity, kind string, msg any, timeout time.Duration) (any, error) {
	res, err := d.c.Request(identity, kind, msg, pcluster.WithTimeout(timeout))
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("cluster: no answer from %s/%s", kind, identity)
	}
	return res, nil
}

// Send tells the virtual actor (identity, kind) without waiting.
func (d *Directory) Send(identity, kind string, msg any) {
	pid := d.c.Get(identity, kind)
	if pid == nil {
		slog.Error("cluster: no activation for a message", "kind", kind)
		return
	}
	d.c.ActorSystem.Root.Send(pid, msg)
}

// Stop leaves the cluster, stopping this node's activations.
func (d *Directory) Stop() { d.c.Shutdown(true) }
