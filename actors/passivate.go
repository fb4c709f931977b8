package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	directory "github.com/shlyuz/shlyuz/cluster"
)

// Activations is how many account activations (each with its keys) are live on this node.
func (g *Gateway) Activations() int64 { return g.actives.Load() }

// idleState is what an actor that may be passivated keeps: when it last
// handled a message, and how many it handled, so that one arriving while the
// journal is flushed calls the passivation off.
type idleState struct {
	seen uint64
	last time.Time
}

// idleCheck asks an activation whether it has been idle since before Since.
// The gateway's idle sweeper sends it (protoactor's receive timeout races
// with the synchronized dispatcher, so it is not used).
type idleCheck struct{ Since time.Time }

// passivateNow ends a passivation once the journal committed every charge
// the actor made up to its message number seen.
type passivateNow struct{ seen uint64 }

// abandoned is a passivateNow that never matches: the flush failed.
const abandoned = ^uint64(0)

// activated counts a new activation.
func (d *deps) activated() { d.actives.Add(1) }

// stopped counts an activation that ended.
func (d *deps) stopped() { d.actives.Add(-1) }

// passivation handles the actor's part of passivation and reports whether the
// message was one of it; any other message counts as activity.
func (d *deps) passivation(ctx actor.Context, st *idleState, identity, kind string, holding bool) bool {
	switch m := ctx.Message().(type) {
	case *idleCheck:
		if holding || st.last.After(m.Since) || d.budget.Add(-1) < 0 {
			return true // busy, or the sweep's batch is spent: a later sweep
		}
		// A later activation loads the state from the store: commit what
		// this one journaled first, off the mailbox, which stays open.
		self, sys, seen, j := directory.Detached(ctx.Self()), ctx.ActorSystem(), st.seen, d.journal
		go func() {
			fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if j.Flush(fctx) != nil {
				seen = abandoned // the store is not reachable now: the next sweep tries again
			}
			sys.Root.Send(self, &passivateNow{seen: seen})
		}()
		return true
	case *passivateNow:
		if holding || m.seen != st.seen {
			return true // busy again since, or the flush failed
		}
		// Nothing arrived since the decision: leave the directory and stop. A
		// request racing the stop is a dead letter, which the directory retries
		// on a new activation; no one-way message can be on its way, since those
		// only settle holds and there are none.
		d.dir.Forget(identity, kind, ctx.Self())
		ctx.Stop(directory.Detached(ctx.Self()))
		return true
	case actor.AutoReceiveMessage, actor.SystemMessage:
		return false
	}
	st.seen++
	st.last = time.Now()
	return false
}

// sweepIdle tells every account activation, every half idle time,
// to passivate if it was idle for the idle time, at most PassivateBatch of
// them a sweep, until stop is closed.
func (g *Gateway) sweepIdle(stop <-chan struct{}) {
	t := time.NewTicker(max(g.idle/2, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			g.budget.Store(g.passivateBatch)
			check := &idleCheck{Since: now.Add(-g.idle)}
			g.dir.Broadcast(KindAccount, check)
		}
	}
}
