package cluster

import (
	"context"
	"net"
	"strconv"
	"time"

	pcluster "github.com/asynkron/protoactor-go/cluster"
)

// sqlProvider is protoactor's membership read from the members' leases in
// the shared database: every quarter lease it lists the live members and
// hands them to the member list. A node killed with -9 leaves the list once
// its lease expires; a paused one fences itself (Lease) before its peers
// may claim its accounts, so protoactor's view never decides who grants.
type sqlProvider struct {
	lease   *Lease
	address string // advertised actor address; "" = the bound one
	c       *pcluster.Cluster
	stop    chan struct{}
	done    chan struct{}
}

func (p *sqlProvider) StartMember(c *pcluster.Cluster) error {
	p.c = c
	if p.address == "" {
		host, port, err := c.ActorSystem.GetHostPort()
		if err != nil {
			return err
		}
		p.address = net.JoinHostPort(host, strconv.Itoa(port))
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.lease.TTL())
	defer cancel()
	if err := p.lease.Publish(ctx, p.address); err != nil {
		return err
	}
	p.refresh()
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go p.loop()
	return nil
}

func (p *sqlProvider) StartClient(c *pcluster.Cluster) error { return p.StartMember(c) }

func (p *sqlProvider) Shutdown(bool) error {
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	return nil
}

func (p *sqlProvider) loop() {
	defer close(p.done)
	t := time.NewTicker(p.lease.TTL() / 4)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.refresh()
		}
	}
}

// refresh hands the live members to protoactor; this node is listed while
// its own lease is live, and alone it still lists itself.
func (p *sqlProvider) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), p.lease.TTL()/4)
	defer cancel()
	live, err := p.lease.store.Members(ctx, time.Now())
	if err != nil {
		p.lease.log.Warn("cluster: listing the members failed", "err", err)
		return
	}
	kinds := p.c.GetClusterKinds()
	members := make([]*pcluster.Member, 0, len(live))
	for _, m := range live {
		host, port, err := net.SplitHostPort(m.Address)
		n, err2 := strconv.Atoi(port)
		if err != nil || err2 != nil || m.Mode != ModeSQL {
			continue // not yet published, or not a cluster member
		}
		members = append(members, &pcluster.Member{Id: m.ID, Host: host, Port: int32(n), Kinds: kinds})
	}
	if len(members) > 0 {
		p.c.MemberList.UpdateClusterTopology(members)
	}
}
