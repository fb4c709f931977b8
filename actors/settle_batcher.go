package actors

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// settleBatcher sends the durable settlements of accounts served on other
// nodes in batches (settle_batch.go has the owner's side): while
// settleBatchesOnTheWay batches of an account are on their way, the
// settlements that come are queued and go together as the next, so under
// load a node crosses to an owner once for many calls, and with few calls in
// flight a settlement goes at once, as before. The acknowledgements, and the retries of settleDurably, stay per
// settlement: a batch that fails (a time-out, the owner gone) fails each of
// its settlements, which are sent again on their own schedule and applied
// once at the owner.
type settleBatcher struct {
	send    func(account string, m *acctSettleBatch, timeout time.Duration) (any, error)
	mu      sync.Mutex
	q       map[string]*settleQueue // by account; gone while nothing is queued or on its way
	batches atomic.Int64            // batches sent, since the start
	items   atomic.Int64            // settlements they carried
}

// maxSettleBatch bounds a batch: its message stays small, and its
// settlements' answers wait for one commit or two.
const maxSettleBatch = 256

type settleQueue struct {
	waiting []*settleWaiter
	sending int // batches on their way
}

// settleBatchesOnTheWay bounds an account's batches on their way from this
// node: a settlement that finds fewer goes at once (its own batch, with
// whatever is queued), so that a settlement waits behind at most this many
// batches' commits; with one, each settlement would wait for the commit
// before its own, and the owner's commits would carry each node's
// settlements every other time only.
const settleBatchesOnTheWay = 2

type settleWaiter struct {
	m       *acctSettle
	timeout time.Duration
	ch      chan settleResult // capacity 1
}

type settleResult struct {
	ack *settleAck
	err error
}

var errBatchAnswer = errors.New("actors: a settlement batch's answer does not match the batch")

func newSettleBatcher(send func(account string, m *acctSettleBatch, timeout time.Duration) (any, error)) *settleBatcher {
	return &settleBatcher{send: send, q: make(map[string]*settleQueue)}
}

// settle sends m with the account's next batch and waits for its answer:
// a *settleAck, or the batch's error. timeout bounds the batch's request;
// a settlement queued behind a batch on its way waits for that one too.
func (b *settleBatcher) settle(account string, m *acctSettle, timeout time.Duration) (any, error) {
	w := &settleWaiter{m: m, timeout: timeout, ch: make(chan settleResult, 1)}
	b.mu.Lock()
	q := b.q[account]
	if q == nil {
		q = &settleQueue{}
		b.q[account] = q
	}
	q.waiting = append(q.waiting, w)
	lead := q.sending < settleBatchesOnTheWay
	if lead {
		q.sending++
	}
	b.mu.Unlock()
	if lead {
		// A settlement that may send sends its own batch in its goroutine
		// (no hand-off when it is alone); those queued meanwhile go from a
		// goroutine of their own, so that it does not wait for theirs.
		if b.next(account, q) {
			go b.run(account, q)
		}
	}
	r := <-w.ch
	if r.err != nil {
		return nil, r.err
	}
	return r.ack, nil
}

// run sends the account's batches until nothing is queued.
func (b *settleBatcher) run(account string, q *settleQueue) {
	for b.next(account, q) {
	}
}

// next sends one batch of what is queued and answers its settlements; it
// says whether more was queued meanwhile, for the caller to send (false:
// it sends no more).
func (b *settleBatcher) next(account string, q *settleQueue) bool {
	b.mu.Lock()
	ws := q.waiting
	if len(ws) > maxSettleBatch {
		q.waiting = ws[maxSettleBatch:]
		ws = ws[:maxSettleBatch]
	} else {
		q.waiting = nil
	}
	b.mu.Unlock()
	if len(ws) > 0 { // none: another sender took them
		b.sendBatch(account, ws)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(q.waiting) > 0 {
		return true
	}
	if q.sending--; q.sending == 0 {
		delete(b.q, account)
	}
	return false
}

// sendBatch sends ws's settlements as one batch and gives each its answer.
func (b *settleBatcher) sendBatch(account string, ws []*settleWaiter) {
	items := make([]*acctSettle, len(ws))
	var timeout time.Duration
	for i, w := range ws {
		items[i], timeout = w.m, max(timeout, w.timeout)
	}
	b.batches.Add(1)
	b.items.Add(int64(len(ws)))
	res, err := b.send(account, &acctSettleBatch{Items: items}, timeout)
	acks, ok := res.(*settleAckBatch)
	if err == nil && (!ok || len(acks.Acks) != len(ws)) {
		err = errBatchAnswer
	}
	for i, w := range ws {
		if err != nil {
			w.ch <- settleResult{err: err}
			continue
		}
		w.ch <- settleResult{ack: &acks.Acks[i]}
	}
}
