package actors

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	shlyuz "github.com/shlyuz/shlyuz"
	directory "github.com/shlyuz/shlyuz/cluster"
)

// settle releases a call's reservation and debits what it cost: what was
// held, or more when the upstream reported more (docs/billing.md). A settlement sent as
// a request is acknowledged once its charge is committed; one sent again
// (its acknowledgement was lost, or a new activation adopted the call) is
// applied once: a repeat here waits for the first one's commit, and a charge
// committed by an earlier activation is a duplicate whose debit is undone.
func (a *accountActor) settle(ctx actor.Context, m *acctSettle, reply settleTo) {
	if a.loadErr != nil { // the account is, or is being, served elsewhere
		reply.send(&settleAck{Moved: true})
		return
	}
	if p := a.settled.get(m.GenID); p != nil {
		p.wait(reply)
		return
	}
	h, ok := a.dropHold(m.GenID)
	if !ok && m.Slice { // reserved from its node's slice (an adopted call has a hold of its own)
		h, ok = a.chargeSlice(m)
	}
	if !ok { // never granted here, nor adopted: a void grant or a call of a node that left
		reply.send(&settleAck{Refused: true, Epoch: a.balance.Epoch})
		return
	}
	if h.keyID == "" && m.KeyID != "" { // a video job's hold, loaded from the store before its key
		h.keyID = m.KeyID
		_, _ = a.keyOf(m.KeyID) // loaded before the charge is committed: its spend counts the charge once
	}
	k := a.keys[h.keyID]
	if k != nil && k.key.RateLimit != nil && (m.Tokens > 0 || h.tokens > 0) {
		k.rate.Settle(h.tokens, h.tokensIn, m.Tokens, m.Now)
	}
	var entry *shlyuz.LedgerEntry
	// The whole price is debited, even past the hold when an upstream
	// reported more than was reserved (settleBill records it on the
	// generation): the client, not the operator, pays what the provider
	// bills. The balance may go below zero; it then grants nothing until it
	// is topped up, and a key's spend past its ceiling stops that key.
	if amount := m.Amount; amount > 0 {
		pkg, bought := a.balance.Split(amount, m.Now)
		entry = &shlyuz.LedgerEntry{
			ID:           "chg-" + m.GenID,
			AccountID:    a.balance.AccountID,
			KeyID:        m.KeyID,
			Kind:         shlyuz.EntryCharge,
			PackageDelta: pkg,
			BoughtDelta:  bought,
			Epoch:        a.balance.Epoch,
			CreatedAt:    m.Now,
		}
		a.balance.Apply(entry)
		if k != nil {
			k.roll(a, m.Now)
			k.spent += amount
		}
	}
	p := a.settled.add(m.GenID, reply)
	epoch := a.balance.Epoch
	done := &settleAck{Epoch: epoch}
	if m.Slice && m.Refill > 0 { // the slice grows with the answer: its node asks the owner for nothing else
		done.Slice, done.Key, done.KeyVersion = a.growSlice(m.Requester, m.From, h.keyID, m.Refill, shlyuz.MulChecked(m.Held, sliceLeast), m.Now)
		p.slice, p.sliceID = done.Slice, sliceID(m.Requester, h.keyID) // in case every acknowledgement is lost (takeBack)
	}
	if entry == nil && m.Generation == nil {
		p.finish(done)
		a.settled.pending.Add(-1)
		return
	}
	self, root, pending := ctx.Self(), ctx.ActorSystem().Root, &a.settled.pending
	// The journal keeps a copy of the entry: this one is not changed again. A
	// settlement sent as a request has a reply waiting for the commit, so it
	// starts one (here, when it is this node's only call: nobody else's
	// settlement is coming to share it); a one-way settlement rides along
	// with the next.
	add := func(e *shlyuz.LedgerEntry, g *shlyuz.Generation, done func(Outcome)) {
		a.deps.journal.AddNotify(e, g, ctx.Sender() != nil, done)
	}
	if s := ctx.Sender(); s != nil && s.Address == ctx.ActorSystem().Address() && a.deps.alone() {
		add = a.deps.journal.AddCommit
	}
	// The journal calls back once with the store's outcome, or, with a
	// write-ahead log, with Logged and later again only for a Duplicate or
	// a Fenced entry: the first call answers.
	// An acknowledgement to another node given by a commit goes with the
	// others of that commit (ackOutbox); one given by the write-ahead log's
	// append goes at once, there being no commit to flush it.
	acks := &a.deps.journal.acks
	add(entry, m.Generation, func(o Outcome) {
		if p.answered.CompareAndSwap(false, true) {
			out := acks
			if o == Logged {
				out = nil
			}
			if o == Fenced {
				p.finishVia(&settleAck{Moved: true}, out)
			} else {
				p.finishVia(done, out)
			}
			pending.Add(-1)
		}
		if o == Duplicate || o == Fenced { // the usual outcomes need nothing more of the actor
			root.Send(directory.Detached(self), &settleCommitted{entry: entry, keyID: h.keyID, outcome: o})
		}
	})
}

// settleCommitted tells the account actor that the store refused a
// settlement's charge, or had it already (local only: sent by the journal's
// commit).
type settleCommitted struct {
	entry   *shlyuz.LedgerEntry
	keyID   string
	outcome Outcome
}

// committed undoes the in-memory debit of a charge an earlier activation had
// committed already (the balance and the key's spend read at the claim hold
// it), and stops granting once the store refused a charge of this epoch.
func (a *accountActor) committed(m *settleCommitted) {
	switch {
	case m.outcome == Fenced:
		a.checkFence()
	case m.outcome == Duplicate && m.entry != nil:
		back := *m.entry
		back.PackageDelta, back.BoughtDelta = -back.PackageDelta, -back.BoughtDelta
		a.balance.Apply(&back)
		if k, ok := a.keys[m.keyID]; ok {
			k.spent += m.entry.PackageDelta + m.entry.BoughtDelta // the deltas are negative
		}
	}
}

// settleBook remembers this activation's settlements: a repeat is answered
// with the first one's outcome instead of being applied again.
type settleBook struct {
	byID    map[string]*pendingSettle
	order   []string
	pending atomic.Int64 // settlements whose commit is not known yet (counted down by the journal)
}

// A settlement is remembered for settledFor after its commit, longer than a
// requester goes on repeating it; maxSettled bounds the book all the same.
const (
	settledFor = time.Minute
	maxSettled = 65536
)

func (b *settleBook) get(genID string) *pendingSettle { return b.byID[genID] }

func (b *settleBook) add(genID string, reply settleTo) *pendingSettle {
	if b.byID == nil {
		b.byID = make(map[string]*pendingSettle)
	}
	now := time.Now()
	for len(b.order) > 0 {
		p := b.byID[b.order[0]]
		old := p != nil && p.doneBefore(now.Add(-settledFor))
		if !old && len(b.order) < maxSettled {
			break
		}
		if p != nil && p.doneBefore(now) {
			delete(b.byID, b.order[0])
		}
		b.order = b.order[1:]
	}
	p := &pendingSettle{}
	p.wait(reply)
	b.byID[genID] = p
	b.order = append(b.order, genID)
	b.pending.Add(1)
	return p
}

// pendingSettle is one settlement's outcome and whoever waits for it.
type pendingSettle struct {
	mu      sync.Mutex
	ack     *settleAck
	at      time.Time  // of the outcome
	first   settleTo   // the first waiter (to nil: none)
	waiters []settleTo // the others
	// slice is what the settlement's refill added to sliceID, until taken
	// back (the account actor's alone: the journal's callback never reads it).
	slice   shlyuz.Credits
	sliceID string
	// answered: the journal's first outcome answered the waiters (its
	// callback's; a field here, not a variable of its own on the heap).
	answered atomic.Bool
}

func (p *pendingSettle) wait(reply settleTo) {
	if reply.to == nil {
		return // a one-way settlement: nobody waits
	}
	p.mu.Lock()
	if p.ack == nil {
		if p.first.to == nil {
			p.first = reply
		} else {
			p.waiters = append(p.waiters, reply)
		}
		p.mu.Unlock()
		return
	}
	ack := p.ack
	p.mu.Unlock()
	reply.send(ack)
}

func (p *pendingSettle) finish(ack *settleAck) { p.finishVia(ack, nil) }

// finishVia is finish whose answers to other nodes go through out (when
// not nil), with the rest of a commit's.
func (p *pendingSettle) finishVia(ack *settleAck, out *ackOutbox) {
	p.mu.Lock()
	p.ack, p.at = ack, time.Now()
	first, ws := p.first, p.waiters
	p.first, p.waiters = settleTo{}, nil
	p.mu.Unlock()
	first.sendVia(ack, out)
	for _, w := range ws {
		w.sendVia(ack, out)
	}
}

// doneBefore says whether the outcome is known since before t.
func (p *pendingSettle) doneBefore(t time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ack != nil && !p.at.After(t)
}

// settleTo is where a settlement's answer goes: its sender, when it was
// sent as a request (from this node or another); a one-way settlement (no
// sender) gets no answer.
type settleTo struct {
	root *actor.RootContext
	to   *actor.PID
}

// settleReply is the answer's way back for the settlement ctx handles.
func settleReply(ctx actor.Context) settleTo {
	return settleTo{root: ctx.ActorSystem().Root, to: ctx.Sender()}
}

func (r settleTo) send(ack *settleAck) { r.sendVia(ack, nil) }

// sendVia sends ack, through out when it goes to another node.
func (r settleTo) sendVia(ack *settleAck, out *ackOutbox) {
	switch {
	case r.to == nil:
	case out != nil && r.to.Address != r.root.ActorSystem().Address():
		out.add(r.root, r.to, ack)
	default:
		r.root.Send(r.to, ack)
	}
}
