package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz/cluster"
)

// clusterSettings are the cluster settings after the environment and the
// defaults are applied.
type clusterSettings struct {
	mode      string
	host      string
	port      int
	advertise string
	leaseTTL  time.Duration
	durable   bool
}

// resolveCluster applies SHLYUZ_CLUSTER_MODE, SHLYUZ_CLUSTER_LISTEN and
// SHLYUZ_CLUSTER_ADVERTISE over the config and checks them against the database.
func resolveCluster(cfg *Config, db string) (*clusterSettings, error) {
	c := cfg.Cluster
	cs := &clusterSettings{mode: envOr("SHLYUZ_CLUSTER_MODE", orDefault(c.Mode, cluster.ModeSingle)),
		host: c.Host, port: c.Port, leaseTTL: c.LeaseTTL,
		advertise: envOr("SHLYUZ_CLUSTER_ADVERTISE", c.Advertise)}
	switch cs.mode {
	case cluster.ModeSingle, cluster.ModeSQL:
	default:
		return nil, bad("cluster.mode (SHLYUZ_CLUSTER_MODE)", fmt.Errorf("%q is not single or sql", cs.mode))
	}
	if cs.mode == cluster.ModeSQL && !strings.HasPrefix(db, "postgres://") && !strings.HasPrefix(db, "postgresql://") {
		return nil, bad("cluster.mode (SHLYUZ_CLUSTER_MODE)", errors.New("sql mode needs a shared postgres:// or postgresql:// database (CockroachDB or PostgreSQL); SQLite serves one node only"))
	}
	if listen := envOr("SHLYUZ_CLUSTER_LISTEN", c.Listen); listen != "" {
		host, port, err := net.SplitHostPort(listen)
		if err == nil {
			cs.port, err = strconv.Atoi(port)
		}
		if err != nil || cs.port < 0 || cs.port > 65535 {
			return nil, bad("cluster.listen (SHLYUZ_CLUSTER_LISTEN)", fmt.Errorf("%q is not HOST:PORT (port 0: any free port)", listen))
		}
		cs.host = host
	}
	if cs.advertise != "" {
		if _, _, err := net.SplitHostPort(cs.advertise); err != nil {
			return nil, bad("cluster.advertise (SHLYUZ_CLUSTER_ADVERTISE)", fmt.Errorf("%q is not HOST:PORT", cs.advertise))
		}
	}
	switch {
	case cs.leaseTTL == 0 && cs.mode == cluster.ModeSQL:
		cs.leaseTTL = 2 * time.Second // the takeover time after a node's loss
	case cs.leaseTTL == 0:
		cs.leaseTTL = 5 * time.Second // only a restart after a crash waits for it
	case cs.leaseTTL < 200*time.Millisecond || cs.leaseTTL > time.Minute:
		return nil, bad("cluster.lease_ttl", fmt.Errorf("%s is out of range (200ms to 1m)", cs.leaseTTL))
	}
	cs.durable = true // a reply's last bytes leave after its charge is committed, in every mode
	if c.DurableSettle != nil {
		cs.durable = *c.DurableSettle
	}
	return cs, nil
}

// joinCluster writes this node's lease. A lost lease ends serve with an error
// (the process exits non-zero; its supervisor starts it again under a new id).
func (in *instance) joinCluster(ctx context.Context, cs *clusterSettings, id, httpAddr string) error {
	addr := httpAddr // a single node shows where it serves
	if cs.mode == cluster.ModeSQL {
		addr = "" // published with the actor address once the actor system listens
	}
	lease, err := cluster.Join(ctx, in.store, cluster.LeaseConfig{ID: id, Mode: cs.mode, Address: addr, TTL: cs.leaseTTL, Log: in.log,
		OnFence: func(err error) {
			select {
			case in.served <- fmt.Errorf("cluster: this node lost its lease (%w); it stops so that its accounts move", err):
			default:
			}
		}})
	if err != nil {
		return bad("cluster.mode (SHLYUZ_CLUSTER_MODE)", err)
	}
	in.lease = lease
	in.cleanup = append(in.cleanup, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = lease.Leave(ctx)
	})
	return nil
}

// leaveCluster commits what the journal holds, then deletes this node's
// lease row and releases its accounts, so the others claim them at once
// without fencing a charge of this node. Nothing is granted here afterwards.
func (in *instance) leaveCluster() {
	if in.lease == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := in.journal.Flush(ctx); err != nil {
		in.log.Error("cluster: the journal did not commit before leaving; the accounts stay claimed until the lease expires", "err", err)
		return
	}
	if err := in.lease.Leave(ctx); err != nil {
		in.log.Error("cluster: leaving failed; the lease expires by itself", "err", err)
	}
}
