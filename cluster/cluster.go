// Package cluster wires the gateway's account actors (and video jobs) into a
// protoactor cluster. A single node is a cluster of one (the in-memory
// provider); several nodes use the automanaged provider, so adding nodes
// changes configuration, not code. Directory is how the rest reaches the
// cluster's virtual actors.
package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
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
	// In ModeSQL the membership is the leases in the shared
	// database (Lease), the actors are reachable at Advertise (host:port;
	// default Host:Port), and remote traffic runs on the default dispatcher.
	Mode      string
	Lease     *Lease
	Advertise string
}

// Directory is a running cluster member. It remembers the PID of every
// activation it reached, so that a request costs one actor round trip; a
// PID that died (a passivated or restarted activation) is looked up again.
type Directory struct {
	c       *pcluster.Cluster
	timeout time.Duration
	pids    sync.Map // pidKey → *actor.PID
	alone   bool     // a cluster of one: nobody to tell when it stops
	sql     *sqlProvider
	// repliers are the idle reply addresses of requests to this node's actors (reply.go).
	repliers chan *replier

	leftMu sync.Mutex
	left   map[string]chan struct{} // member address → closed when that member leaves
}

// ErrMemberLeft is a request whose target's node left the cluster before it
// answered (killed, or fenced): the caller may try the identity again, where
// the directory finds it now.
var ErrMemberLeft = errors.New("cluster: the member serving the actor left the cluster")

// ErrNoActivation is an identity the cluster could not place (yet): after a
// node's restart, before membership settles. Retry shortly.
var ErrNoActivation = errors.New("cluster: no activation")

type pidKey struct{ kind, identity string }

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
	sqlMode := cfg.Mode == ModeSQL
	var sp *sqlProvider
	remoteOpts := []remote.ConfigOption{}
	switch {
	case sqlMode:
		if cfg.Lease == nil {
			return nil, fmt.Errorf("cluster: sql mode needs the node's lease")
		}
		sp = &sqlProvider{lease: cfg.Lease, address: cfg.Advertise}
		provider = sp
		if cfg.Advertise != "" {
			remoteOpts = append(remoteOpts, remote.WithAdvertisedHost(cfg.Advertise))
		}
	case len(cfg.Peers) == 0:
		provider = test.NewTestProvider(test.NewInMemAgent())
	default:
		if cfg.AutoPort == 0 {
			return nil, fmt.Errorf("cluster: peers are set but the automanaged port is not")
		}
		provider = automanaged.NewWithConfig(2*time.Second, cfg.AutoPort, cfg.Peers...)
	}
	strategy := actor.NewOneForOneStrategy(10, time.Second, actor.DefaultDecider) // as actors' root supervisor
	// A synchronized dispatcher runs an idle mailbox in the sender's goroutine
	// instead of waking a goroutine of its own: a reservation (account
	// actor → reply) then costs no goroutine hand-off (a wake-up, often on
	// another core) at all. A busy
	// mailbox is still drained by the goroutine that runs it, in order.
	// Messages from other nodes arrive on the gRPC reader's goroutine, which
	// a synchronized dispatcher would block with the actor's store calls:
	// with remote traffic (sql mode) the default dispatcher runs them.
	dispatcher := actor.NewSynchronizedDispatcher(300)
	if sqlMode {
		dispatcher = actor.NewDefaultDispatcher(300)
	}
	ks := make([]*pcluster.Kind, 0, len(kinds))
	for name, producer := range kinds {
		ks = append(ks, pcluster.NewKind(name, actor.PropsFromProducer(producer,
			actor.WithSupervisor(strategy), actor.WithDispatcher(dispatcher))))
	}
	rc := remote.Configure(cfg.Host, cfg.Port, remoteOpts...)
	rc.MaxRetryCount = 1 // a dead peer is dropped by its lease, not by reconnect loops
	c := pcluster.New(sys, pcluster.Configure(cfg.Name, provider, disthash.New(),
		rc, pcluster.WithKinds(ks...), pcluster.WithRequestTimeout(cfg.Timeout)))
	d := &Directory{c: c, timeout: cfg.Timeout, alone: !sqlMode && len(cfg.Peers) == 0, sql: sp, repliers: make(chan *replier, freeRepliers)}
	sys.EventStream.Subscribe(d.onTopology)
	c.StartMember()
	return d, nil
}

// onTopology forgets the PIDs of members that left, so that the next request
// for their identities activates them on a member that is still there.
func (d *Directory) onTopology(ev any) {
	t, ok := ev.(*pcluster.ClusterTopology)
	if !ok || len(t.Left) == 0 {
		return
	}
	gone := make(map[string]bool, len(t.Left))
	d.leftMu.Lock()
	for _, m := range t.Left {
		gone[m.Address()] = true
		if ch, ok := d.left[m.Address()]; ok {
			close(ch) // requests waiting on its actors fail now, not at their time-out
			delete(d.left, m.Address())
		}
	}
	d.leftMu.Unlock()
	d.pids.Range(func(k, v any) bool {
		if gone[v.(*actor.PID).Address] {
			d.pids.Delete(k)
		}
		return true
	})
}

// Request asks the virtual actor (identity, kind) and waits for its answer.
func (d *Directory) Request(identity, kind string, msg any, timeout time.Duration) (any, error) {
	key := pidKey{kind, identity}
	if pid, ok := d.pids.Load(key); ok {
		res, err := d.ask(pid.(*actor.PID), msg, timeout)
		if err == nil {
			return res, nil
		}
		d.pids.Delete(key)
		if !errors.Is(err, actor.ErrDeadLetter) {
			return nil, err // a time-out is not retried: the message may have been handled
		}
	}
	pid, err := d.pid(key)
	if err != nil {
		return nil, err
	}
	return d.ask(pid, msg, timeout)
}

// ask requests pid's answer; one on another node fails with ErrMemberLeft
// as soon as that node leaves the cluster.
func (d *Directory) ask(pid *actor.PID, msg any, timeout time.Duration) (any, error) {
	if pid.Address == d.c.ActorSystem.Address() || d.alone {
		return d.replyAsk(pid, msg, timeout, nil)
	}
	d.leftMu.Lock()
	if d.left == nil {
		d.left = make(map[string]chan struct{})
	}
	left, ok := d.left[pid.Address]
	if !ok {
		left = make(chan struct{})
		d.left[pid.Address] = left
	}
	d.leftMu.Unlock()
	return d.replyAsk(pid, msg, timeout, left)
}

// Send tells the virtual actor (identity, kind) without waiting.
func (d *Directory) Send(identity, kind string, msg any) {
	key := pidKey{kind, identity}
	if pid, ok := d.pids.Load(key); ok {
		d.c.ActorSystem.Root.Send(pid.(*actor.PID), msg)
		return
	}
	pid, err := d.pid(key)
	if err != nil {
		slog.Error("cluster: no activation for a message", "kind", kind, "err", err)
		return
	}
	d.c.ActorSystem.Root.Send(pid, msg)
}

// PID activates (or finds) the virtual actor (identity, kind).
// A remembered PID whose activation stopped (it may stop itself after a
// failed load) is looked up again, since actors that forward to it never see
// the dead letter themselves.
func (d *Directory) PID(identity, kind string) (*actor.PID, error) {
	key := pidKey{kind, identity}
	if v, ok := d.pids.Load(key); ok {
		pid := v.(*actor.PID)
		if pid.Address != d.c.ActorSystem.Address() {
			return pid, nil // another node's: its own lookups keep it right
		}
		if _, alive := d.c.ActorSystem.ProcessRegistry.GetLocal(pid.Id); alive {
			return pid, nil
		}
		d.pids.Delete(key)
	}
	return d.pid(key)
}

// Remote says whether the activation of (identity, kind) that this node
// last reached runs on another node (false when it reached none).
func (d *Directory) Remote(identity, kind string) bool {
	v, ok := d.pids.Load(pidKey{kind, identity})
	return ok && v.(*actor.PID).Address != d.c.ActorSystem.Address()
}

// Broadcast tells every activation of the kind this node reached, without waiting.
func (d *Directory) Broadcast(kind string, msg any) {
	d.pids.Range(func(k, v any) bool {
		if k.(pidKey).kind == kind {
			d.c.ActorSystem.Root.Send(v.(*actor.PID), msg)
		}
		return true
	})
}

// Forget drops the remembered PID of an activation that stopped, unless the
// identity has a newer activation remembered already.
func (d *Directory) Forget(identity, kind string, pid *actor.PID) {
	key := pidKey{kind, identity}
	if v, ok := d.pids.Load(key); ok && v.(*actor.PID).Equal(pid) {
		d.pids.CompareAndDelete(key, v)
	}
}

// RequestAll asks every activation of the kind that this node reached and
// waits for every answer (a barrier before shutdown).
func (d *Directory) RequestAll(kind string, msg any, timeout time.Duration) error {
	var futures []*actor.Future
	d.pids.Range(func(k, v any) bool {
		if k.(pidKey).kind == kind {
			futures = append(futures, d.c.ActorSystem.Root.RequestFuture(v.(*actor.PID), msg, timeout))
		}
		return true
	})
	var errs []error
	for _, f := range futures {
		if _, err := f.Result(); err != nil && !errors.Is(err, actor.ErrDeadLetter) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// pid activates (or finds) the identity and remembers its PID.
func (d *Directory) pid(key pidKey) (*actor.PID, error) {
	pid := d.c.Get(key.identity, key.kind)
	if pid == nil {
		return nil, fmt.Errorf("%w of %s", ErrNoActivation, key.kind)
	}
	pid = Detached(pid)
	d.pids.Store(key, pid)
	return pid, nil
}

// Detached is a copy of pid to send through. protoactor caches the process
// behind a PID in the PID object on its first send, and its placement actor
// keeps the PID objects of its stopped children in the unused tail of a slice
// (PIDSet.Remove truncates without clearing): sending through the original
// would keep every passivated actor, its mailbox and its state alive. A copy
// holds the cache itself and is dropped with the directory entry.
func Detached(pid *actor.PID) *actor.PID {
	return actor.NewPID(pid.Address, pid.Id)
}

// Stop leaves the cluster, stopping this node's activations. A cluster of one
// has no member to hand its identities to, so it only stops its actor
// system: protoactor's graceful leave races its own placement actor when
// there is nobody else (seen under -race), and the caller has drained the
// activations and committed their journal already.
//
// In sql mode the node has left already (its lease row is gone, so the
// others route around it): it stops reading the members and its actor
// system, without protoactor's graceful leave and its fixed 2 s sleep.
func (d *Directory) Stop() {
	if d.sql != nil {
		_ = d.sql.Shutdown(false)
		d.c.ActorSystem.Shutdown()
		return
	}
	if d.alone {
		d.c.ActorSystem.Shutdown()
		return
	}
	d.c.Shutdown(true)
}
