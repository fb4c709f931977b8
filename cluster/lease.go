package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Modes of a node.
const (
	ModeSingle = "single" // the only gateway on its database
	ModeSQL    = "sql"    // one of several gateways sharing a PostgreSQL/CockroachDB
)

// Lease is this node's membership row in the shared store. Other nodes may
// claim this node's accounts once the lease has expired, so the node stops
// granting a quarter of a TTL before that (Live). A cluster node that could
// not renew in time, or whose row is gone, fences itself for good: it never
// renews a lapsed lease, because its accounts may have moved meanwhile. A
// single node is replaced only by deleting its row, so it grants nothing
// while its renewal is late and fences itself once its row is gone.
type Lease struct {
	id      string
	mode    string
	store   shlyuz.ClusterStore
	member  shlyuz.Member
	ttl     time.Duration
	log     *slog.Logger
	onFence func(error)

	mu       sync.Mutex
	deadline time.Time // monotonic: Live until then
	fenced   error
	stop     chan struct{}
	stopped  chan struct{}
}

// LeaseConfig says how a node joins.
type LeaseConfig struct {
	ID      string        // the member id (the actor system's); default a fresh one
	Mode    string        // ModeSingle or ModeSQL
	Address string        // what the member list shows as its address
	TTL     time.Duration // default 2s
	Log     *slog.Logger
	// OnFence is told once when the lease is lost; the node must stop serving.
	OnFence func(error)
}

// NewMemberID is a fresh random member id.
func NewMemberID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "m-" + hex.EncodeToString(b[:])
}

// Join writes this node's lease. A single node first takes the store's
// single-node lock (shlyuz.SoleServer): holding it proves that the single-node
// leases it finds belong to dead predecessors, which it removes, and it
// serves at once. Without the lock, a single node that finds another live
// member waits until that member's lease could have run out (a crashed
// predecessor's row), then refuses to start if the other is still renewing.
func Join(ctx context.Context, store shlyuz.ClusterStore, cfg LeaseConfig) (*Lease, error) {
	if cfg.TTL <= 0 {
		cfg.TTL = 2 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	l := &Lease{store: store, ttl: cfg.TTL, log: cfg.Log, onFence: cfg.OnFence,
		stop: make(chan struct{}), stopped: make(chan struct{})}
	now := time.Now()
	if cfg.ID == "" {
		cfg.ID = NewMemberID()
	}
	l.id, l.mode = cfg.ID, cfg.Mode
	l.member = shlyuz.Member{ID: cfg.ID, Address: cfg.Address, Mode: cfg.Mode, StartedAt: now}
	sole := false // this process holds the store's single-node lock
	if ss, ok := store.(shlyuz.SoleServer); ok && cfg.Mode == ModeSingle {
		var err error
		sole, err = ss.LockSole(ctx)
		switch {
		case errors.Is(err, shlyuz.ErrMemberConflict): // its holder is alive
			return nil, fmt.Errorf("another gateway is serving this database (%w); stop it, or run every node with cluster.mode: sql", err)
		case err != nil:
			cfg.Log.Warn("cluster: could not take the single-node lock; a restart waits out the last lease", "err", err)
		}
	}
	var giveUp time.Time
	for {
		start := time.Now()
		l.member.LeaseUntil = start.Add(l.ttl)
		others, err := store.JoinMember(ctx, l.member, start)
		if err == nil {
			l.deadline = start.Add(l.margin())
			break
		}
		if !errors.Is(err, shlyuz.ErrMemberConflict) {
			return nil, err
		}
		if sole && removePredecessors(ctx, store, others, cfg.Log) {
			sole = false // once: whatever conflicts now is waited out as before
			continue
		}
		if giveUp.IsZero() {
			for _, o := range others {
				giveUp = maxTime(giveUp, o.LeaseUntil.Add(l.ttl/2))
			}
			giveUp = minTime(giveUp, start.Add(30*time.Second))
		}
		if time.Now().After(giveUp) {
			return nil, fmt.Errorf("another gateway is serving this database (%w); stop it, or run every node with cluster.mode: sql", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(l.ttl / 4):
		}
	}
	go l.renew()
	return l, nil
}

// removePredecessors deletes the leases of single nodes that died without
// leaving, which the caller proved by holding the store's single-node lock,
// and releases their accounts. It says whether there was any to remove.
func removePredecessors(ctx context.Context, store shlyuz.ClusterStore, others []shlyuz.Member, log *slog.Logger) bool {
	removed := false
	for _, o := range others {
		if o.Mode != ModeSingle {
			continue
		}
		if err := store.LeaveMember(ctx, o.ID); err != nil {
			log.Warn("cluster: could not remove a dead predecessor's lease", "member", o.ID, "err", err)
			return false
		}
		log.Info("cluster: a predecessor died without leaving; its lease is removed", "member", o.ID)
		removed = true
	}
	return removed
}

// margin is how long after a renewal began the node still counts as live.
func (l *Lease) margin() time.Duration { return l.ttl - l.ttl/4 }

// ID is this node's member id.
func (l *Lease) ID() string { return l.id }

// Publish rewrites this node's row with the address its actors listen at
// (known once the actor system has bound its port).
func (l *Lease) Publish(ctx context.Context, address string) error {
	l.mu.Lock()
	m := l.member
	m.Address = address
	l.mu.Unlock()
	start := time.Now()
	m.LeaseUntil = start.Add(l.ttl)
	if _, err := l.store.JoinMember(ctx, m, start); err != nil {
		return err
	}
	l.mu.Lock()
	l.member = m
	if l.fenced == nil {
		l.deadline = start.Add(l.margin())
	}
	l.mu.Unlock()
	return nil
}

// TTL is the lease's length.
func (l *Lease) TTL() time.Duration { return l.ttl }

// Live says whether this node may grant: its lease is renewed and not fenced.
func (l *Lease) Live() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fenced == nil && time.Now().Before(l.deadline)
}

// Fenced is why the lease was lost (nil while it is held).
func (l *Lease) Fenced() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fenced
}

func (l *Lease) renew() {
	defer close(l.stopped)
	t := time.NewTicker(l.ttl / 4)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		start := time.Now()
		l.mu.Lock()
		lapsed := !start.Before(l.deadline)
		l.mu.Unlock()
		since := start // the lease must still be live in the store
		if lapsed {
			if l.mode != ModeSingle { // paused or starved: the accounts may have moved
				l.fence(errors.New("the lease was not renewed in time"))
				return
			}
			// A single node's row is only taken over by deleting it (JoinMember
			// removes lapsed rows), so while it exists the node may renew it.
			since = time.Time{}
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/2)
		ok, err := l.store.RenewMember(ctx, l.id, start.Add(l.ttl), since)
		cancel()
		switch {
		case err != nil:
			l.log.Warn("cluster: lease renewal failed; retrying", "err", err)
		case !ok:
			l.fence(errors.New("the lease lapsed or was removed"))
			return
		default:
			l.mu.Lock()
			if l.fenced == nil {
				l.deadline = start.Add(l.margin())
			}
			l.mu.Unlock()
		}
	}
}

func (l *Lease) fence(err error) {
	l.mu.Lock()
	first := l.fenced == nil
	if first {
		l.fenced = err
	}
	l.mu.Unlock()
	if first {
		l.log.Error("cluster: this node fenced itself; it grants nothing more", "member", l.id, "err", err)
		if l.onFence != nil {
			l.onFence(err)
		}
	}
}

// Leave stops renewing and deletes the row, releasing the node's accounts.
// Call it after the last journal commit.
func (l *Lease) Leave(ctx context.Context) error {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.stopped
	l.mu.Lock()
	if l.fenced == nil {
		l.fenced = errLeft
	}
	l.mu.Unlock()
	return l.store.LeaveMember(ctx, l.id)
}

var errLeft = errors.New("the node left the cluster")

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
