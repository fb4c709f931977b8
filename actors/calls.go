package actors

import (
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	pcluster "github.com/asynkron/protoactor-go/cluster"
)

// callsActorName is the name of every node's call registry actor, which
// answers the holdsQuery of an account activation on any node.
const callsActorName = "shlyuz-calls"

// callRegistry is this node's record of its calls in flight that an account
// activation granted, kept from the grant until their settlement is
// acknowledged. A new activation of the
// account asks every live node's registry for them and adopts them as holds
// before it grants anything; from that query on, a grant of an older
// activation that reaches this node is void.
type callRegistry struct {
	self string // this node's member id ("" without a lease)

	mu       sync.Mutex
	calls    map[callKey]registered
	minEpoch map[string]epochMark // account → the newest activation that asked
}

// callKey is a call in the registry. One flat map, not a map per account:
// a call of an otherwise idle account (the usual case) then allocates
// nothing; a report, once per activation, scans the node's calls in flight.
type callKey struct{ account, genID string }

type registered struct {
	heldCall
	reportedTo int64 // the newest activation epoch that adopted it
}

type epochMark struct {
	epoch int64
	at    time.Time
}

func newCallRegistry(self string) *callRegistry {
	return &callRegistry{self: self, calls: make(map[callKey]registered), minEpoch: make(map[string]epochMark)}
}

// grant records a granted call; false when the grant is void: an activation
// at a newer epoch has collected the account's holds since, without it.
func (r *callRegistry) grant(account string, c heldCall) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.Epoch < r.minEpoch[account].epoch {
		return false
	}
	c.Requester = r.self
	r.calls[callKey{account, c.GenID}] = registered{heldCall: c, reportedTo: c.Epoch}
	return true
}

// acked ends a call whose settlement the activation at epoch committed; false
// when a newer activation adopted the call meanwhile: it must be settled
// there too (where it is a duplicate that releases the adopted hold).
func (r *callRegistry) acked(account, genID string, epoch int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := callKey{account, genID}
	if c, ok := r.calls[k]; ok && c.reportedTo > epoch {
		return false
	}
	delete(r.calls, k)
	return true
}

// done ends a call without an acknowledgement (refused, given up, or sent one-way).
func (r *callRegistry) done(account, genID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.calls, callKey{account, genID})
}

// report answers an activation at epoch: the account's calls in flight, and
// every older grant arriving later is void.
func (r *callRegistry) report(account string, epoch int64) []heldCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if len(r.minEpoch) > 4096 { // a late grant waits at most a request's time-out
		for a, m := range r.minEpoch {
			if now.Sub(m.at) > time.Minute {
				delete(r.minEpoch, a)
			}
		}
	}
	if epoch > r.minEpoch[account].epoch {
		r.minEpoch[account] = epochMark{epoch: epoch, at: now}
	}
	var out []heldCall
	for k, c := range r.calls {
		if k.account == account {
			c.reportedTo = max(c.reportedTo, epoch)
			r.calls[k] = c
			out = append(out, c.heldCall)
		}
	}
	return out
}

// size is the number of calls in flight this node holds a grant for.
func (r *callRegistry) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// callsActor answers other nodes' holdsQuery from this node's registry.
// It also retires the slices their owners recall (slices.go).
type callsActor struct {
	reg    *callRegistry
	slices *sliceBook
}

func (a *callsActor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *holdsQuery:
		ctx.Respond(&holdsReport{Calls: a.reg.report(m.Account, m.Epoch)})
	case *settleAcks:
		m.deliver(ctx)
	case *sliceRecall:
		a.slices.recall(m)
		if ctx.Sender() != nil {
			ctx.Respond(&drain{})
		}
	}
}

// memberID is the lease's member id ("" without a lease).
func memberID(l Lease) string {
	if l == nil {
		return ""
	}
	return l.ID()
}

// onTopology tells this node's account activations which members left the
// cluster, so that they release the holds of those members' calls.
func (g *Gateway) onTopology(ev any) {
	t, ok := ev.(*pcluster.ClusterTopology)
	if !ok || len(t.Left) == 0 {
		return
	}
	ids := make([]string, 0, len(t.Left))
	for _, m := range t.Left {
		ids = append(ids, m.Id)
	}
	msg := &requestersLeft{IDs: ids}
	g.active.Range(func(_, v any) bool {
		g.sys.Root.Send(v.(activation).pid, msg)
		return true
	})
}
