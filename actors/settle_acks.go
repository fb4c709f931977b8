package actors

import (
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// ackOutbox gathers the acknowledgements that one commit of the journal
// gives to durable settlements sent from other nodes, and sends each node
// its share as one message (settleAcks, to its call registry, which hands
// each acknowledgement to the request waiting for it), instead of one
// remote message per settlement: under load one commit carries many
// settlements of each node that serves calls of an account owned here. A
// node's only acknowledgement of a commit goes straight to its request, as
// it would alone. Nothing waits for the flush: the journal flushes when it
// has told every waiter of a commit (Journal.flush).
type ackOutbox struct {
	mu   sync.Mutex
	by   map[string]*settleAcks // requester node's address → its acknowledgements
	root *actor.RootContext
	sent atomic.Int64 // messages sent, since the start
	acks atomic.Int64 // acknowledgements they carried
}

// settleAcks carries acknowledgements to one node's call registry.
type settleAcks struct{ Acks []addressedAck }

// addressedAck answers the request whose reply address on that node is To.
type addressedAck struct {
	To  string
	Ack settleAck
}

// add queues ack for to, a reply address on another node.
func (o *ackOutbox) add(root *actor.RootContext, to *actor.PID, ack *settleAck) {
	o.mu.Lock()
	if o.by == nil {
		o.by = make(map[string]*settleAcks)
	}
	b := o.by[to.Address]
	if b == nil {
		b = &settleAcks{}
		o.by[to.Address] = b
	}
	b.Acks = append(b.Acks, addressedAck{To: to.Id, Ack: *ack})
	o.root = root
	o.mu.Unlock()
}

// flush sends what add queued.
func (o *ackOutbox) flush() {
	o.mu.Lock()
	by, root := o.by, o.root
	o.by = nil
	o.mu.Unlock()
	for addr, b := range by {
		o.sent.Add(1)
		o.acks.Add(int64(len(b.Acks)))
		if len(b.Acks) == 1 {
			root.Send(actor.NewPID(addr, b.Acks[0].To), &b.Acks[0].Ack)
			continue
		}
		root.Send(actor.NewPID(addr, callsActorName), b)
	}
}

// deliver hands each acknowledgement of m to its request on this node.
func (m *settleAcks) deliver(ctx actor.Context) {
	self := ctx.Self().Address
	for i := range m.Acks {
		ctx.Send(actor.NewPID(self, m.Acks[i].To), &m.Acks[i].Ack)
	}
}
