package actors

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Activations is how many key and account actors are live on this node.
func (g *Gateway) Activations() int64 { return g.actives.Load() }

// activated counts a new activation and arms its idle timer.
func (d *deps) activated(ctx actor.Context) {
	d.actives.Add(1)
	if d.idle > 0 {
		ctx.SetReceiveTimeout(d.idle)
	}
}

// passivate stops an idle activation that holds nothing: once the journal
// has committed every charge it made (a later activation loads its state from
// the store), it leaves the directory and stops. A message that reaches it
// while it stops is a dead letter, which the directory's requests retry on a
// new activation; no one-way message can be on its way, since those only
// settle holds and it has none.
func (d *deps) passivate(ctx actor.Context, identity, kind string, holding bool) {
	if holding {
		ctx.SetReceiveTimeout(d.idle) // a timer that fired is off: try again after another idle period
		return
	}
	fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if d.journal.Flush(fctx) != nil {
		ctx.SetReceiveTimeout(d.idle) // the store is not reachable now: stay, and try again later
		return
	}
	d.dir.Forget(identity, kind, ctx.Self())
	ctx.Stop(ctx.Self())
}

// stopped counts an activation that ended.
func (d *deps) stopped() { d.actives.Add(-1) }
