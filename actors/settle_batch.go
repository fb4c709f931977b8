package actors

import (
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// The owner's side of settlement batches (settle_batcher.go): a node that
// serves calls of an account owned elsewhere sends their settlements
// together, and gets one answer with every settlement's acknowledgement, so
// a call at a node that is not the owner costs the two nodes a share of two
// remote messages instead of two each. Each settlement of a batch is
// applied and journaled exactly as if it came alone; the batch is answered
// once its last settlement's outcome is known (they usually share a commit).

// acctSettleBatch is several settlements of one account from one node, sent
// as a request; answered with a settleAckBatch.
type acctSettleBatch struct {
	Items []*acctSettle
}

// settleAckBatch answers an acctSettleBatch: Acks[i] is Items[i]'s answer.
type settleAckBatch struct {
	Acks []settleAck
}

// batchAnswer collects a batch's acknowledgements, which its settlements'
// commits give from the journal's goroutine as well as the actor's.
type batchAnswer struct {
	mu   sync.Mutex
	acks []settleAck
	left atomic.Int64
}

func (b *batchAnswer) set(root *actor.RootContext, to *actor.PID, i int, ack *settleAck) {
	b.mu.Lock()
	b.acks[i] = *ack
	b.mu.Unlock()
	if b.left.Add(-1) == 0 && to != nil {
		b.mu.Lock()
		acks := b.acks
		b.mu.Unlock()
		root.Send(to, &settleAckBatch{Acks: acks})
	}
}

// settleBatch applies each settlement of m, in order, answering into one
// answer.
func (a *accountActor) settleBatch(ctx actor.Context, m *acctSettleBatch) {
	reply := settleReply(ctx)
	if len(m.Items) == 0 {
		if reply.to != nil {
			reply.root.Send(reply.to, &settleAckBatch{})
		}
		return
	}
	b := &batchAnswer{acks: make([]settleAck, len(m.Items))}
	b.left.Store(int64(len(m.Items)))
	for i, it := range m.Items {
		a.settle(ctx, it, settleTo{root: reply.root, to: reply.to, batch: b, i: i})
	}
}
