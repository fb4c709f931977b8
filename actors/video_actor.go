package actors

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	directory "github.com/shlyuz/shlyuz/cluster"
)

// videoActor is the home of one video job (its identity is the job's id). It
// runs the job in a goroutine of its own, so its mailbox never waits on the
// upstream: the runner submits, polls, copies the file and settles, persisting
// every step; the actor passes a cancellation to it, answers the cancellers
// once the job is over, and then stops.
type videoActor struct {
	g       *Gateway
	id      string
	cancel  context.CancelFunc
	stop    chan struct{} // closed to cancel the job
	stopped bool
	ended   bool
	waiters []*actor.PID
}

func (a *videoActor) Receive(ctx actor.Context) {
	switch ctx.Message().(type) {
	case *cluster.ClusterInit:
		id := ctx.Message().(*cluster.ClusterInit).Identity.Identity
		a.id = id
		rctx, cancel := context.WithCancel(a.g.video.ctx)
		a.cancel, a.stop = cancel, make(chan struct{})
		self, sys := directory.Detached(ctx.Self()), ctx.ActorSystem()
		a.g.video.wg.Add(1)
		go func() {
			defer a.g.video.wg.Done()
			a.g.runVideo(rctx, id, a.stop)
			sys.Root.Send(self, &videoEnded{})
		}()
	case *videoWake:
		ctx.Respond(&videoAck{})
	case *videoCancel:
		if a.ended {
			ctx.Respond(&videoAck{})
			return
		}
		a.waiters = append(a.waiters, ctx.Sender())
		if !a.stopped {
			a.stopped = true
			close(a.stop)
		}
	case *videoEnded:
		a.ended = true
		for _, w := range a.waiters {
			ctx.Send(w, &videoAck{})
		}
		a.waiters = nil
		a.g.dir.Forget(a.id, KindVideo, ctx.Self()) // a finished job's actor costs nothing afterwards
		ctx.Poison(directory.Detached(ctx.Self()))
	case *actor.Stopping:
		if a.cancel != nil {
			a.cancel()
		}
	}
}
