package cluster

import (
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// replier is a reusable reply address for a request to one of this node's
// actors: a process registered once and kept in a free list, instead of a
// protoactor future registered, timed and removed for every request. It
// serves one request at a time; the actors answer each request once (a
// request that found no actor is answered by the dead letter process).
type replier struct {
	pid   *actor.PID
	ch    chan any // capacity 1: the answer of the request in flight
	timer *time.Timer
	busy  atomic.Bool // a request is in flight: an answer is expected
	dead  atomic.Bool // given up at a time-out: whatever comes later is dropped
}

func (r *replier) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	if r.dead.Load() || !r.busy.CompareAndSwap(true, false) {
		return // late or unexpected: nobody waits for it
	}
	r.ch <- msg
}

func (r *replier) SendSystemMessage(*actor.PID, any) {}

func (r *replier) Stop(*actor.PID) {}

// freeRepliers bounds the idle repliers kept: one per request in flight at
// the busiest moment, past which they are let go.
const freeRepliers = 1024

// replyAsk sends msg to pid and waits for its answer through a pooled
// reply address. left, when not nil, is closed when pid's node leaves the
// cluster: the request then fails with ErrMemberLeft at once.
func (d *Directory) replyAsk(pid *actor.PID, msg any, timeout time.Duration, left <-chan struct{}) (any, error) {
	r := d.takeReplier()
	r.busy.Store(true)
	d.c.ActorSystem.Root.RequestWithCustomSender(pid, msg, r.pid)
	var res any
	select {
	case res = <-r.ch: // the usual local case: the actor ran in this goroutine (a synchronized dispatcher)
	default:
		r.timer.Reset(timeout)
		select {
		case res = <-r.ch:
			r.timer.Stop()
		case <-r.timer.C:
			d.dropReplier(r)
			return nil, actor.ErrTimeout
		case <-left:
			r.timer.Stop()
			d.dropReplier(r)
			return nil, ErrMemberLeft
		}
	}
	d.putReplier(r)
	if _, ok := res.(*actor.DeadLetterResponse); ok {
		return nil, actor.ErrDeadLetter
	}
	return res, nil
}

// dropReplier gives up a replier whose answer may still come: it is never
// used again, and what reaches it is dropped.
func (d *Directory) dropReplier(r *replier) {
	r.dead.Store(true)
	d.c.ActorSystem.ProcessRegistry.Remove(r.pid)
}

func (d *Directory) takeReplier() *replier {
	select {
	case r := <-d.repliers:
		return r
	default:
	}
	r := &replier{ch: make(chan any, 1), timer: time.NewTimer(time.Hour)}
	r.timer.Stop()
	reg := d.c.ActorSystem.ProcessRegistry
	r.pid, _ = reg.Add(r, "reply"+reg.NextId())
	return r
}

func (d *Directory) putReplier(r *replier) {
	select {
	case d.repliers <- r:
	default:
		d.c.ActorSystem.ProcessRegistry.Remove(r.pid)
	}
}
