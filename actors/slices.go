package actors

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	shlyuz "github.com/shlyuz/shlyuz"
)

// A slice is a part of a key's ceiling and of its account's balance that the
// account's activation, on another node, holds for this node: a
// call of that key arriving here reserves its worst case from the slice
// without asking the owner, so it crosses nodes once (its settlement), not
// twice. The owner keeps the slice as one hold of this node (account_slices.go),
// so the sum of the slices and of its own holds never exceeds the balance or
// the ceiling; this node's view of a slice is never larger than the owner's
// (it shrinks here before the owner learns, and grows only after the owner
// granted). A slice is asked for with a reservation the owner answers, so
// its key's state comes with it; it is given back when unused for sliceIdle
// or recalled (a key revoked or its ceiling changed), and it goes with the
// node's holds when this node leaves the cluster. A newer activation of the
// account never knows a slice: a call reserved from one is reported by the
// call registry and adopted like any other, and a grant after that report
// is void (callRegistry.grant), which retires the slice.
type slice struct {
	account, keyID string
	epoch          int64      // of the activation that granted it
	key            shlyuz.Key // as the owner last sent it
	held           shlyuz.Credits
	inUse          shlyuz.Credits // reserved by this node's calls in flight
	used           time.Time
	retired        bool // no more reservations: recalled, idle or void
	refilling      bool // a settlement asks the owner for more
}

// Slices are asked for as sliceCalls times the call that asks, and used for
// calls up to their whole worst case only; one unused for sliceIdle goes back.
const (
	sliceCalls = 16
	sliceIdle  = time.Second
)

type sliceKey struct{ account, keyID string }

// keyVersion orders a key's states: the activation's epoch, then the
// operator's changes within it.
type keyVersion struct{ epoch, version int64 }

func (v keyVersion) before(w keyVersion) bool {
	return v.epoch < w.epoch || (v.epoch == w.epoch && v.version < w.version)
}

// sliceBook is this node's slices, by account and key.
type sliceBook struct {
	local   atomic.Int64 // calls of accounts served elsewhere reserved from a slice, since the start
	remote  atomic.Int64 // and reserved at the owner (a slice asked for)
	mu      sync.Mutex
	m       map[sliceKey]*slice
	stopped atomic.Bool // the node stops: nothing more is sent (its leaving drops its slices)
	// recalled is the newest recall of each key: an older grant arriving late goes back.
	recalled map[sliceKey]keyVersion
	send     func(account string, msg any) // one-way to the account's activation
	self     string                        // this node's member id: the requester of its slices
}

func newSliceBook(self string, send func(account string, msg any)) *sliceBook {
	b := &sliceBook{m: make(map[sliceKey]*slice), recalled: make(map[sliceKey]keyVersion), self: self}
	b.send = func(account string, msg any) {
		if !b.stopped.Load() {
			send(account, msg)
		}
	}
	return b
}

// stop ends the book's messages, before the actor system stops.
func (b *sliceBook) stop() { b.stopped.Store(true) }

// giveBack returns amount of this node's slice of the key, granted at epoch.
func (b *sliceBook) giveBack(account, keyID string, epoch int64, amount shlyuz.Credits) {
	b.send(account, &sliceReturn{Requester: b.self, KeyID: keyID, Amount: amount, Epoch: epoch})
}

// untaken tells the account's activation that this node gave up the answer
// to genID, a reservation or a settlement that asked for more of the key's
// slice: whatever that answer added to the slice was never counted here,
// and the owner takes it back (accountActor.takeBack). A node gives an
// answer up for good: one that still comes later is dropped with its future.
func (b *sliceBook) untaken(account, keyID, genID string) {
	b.send(account, &sliceReturn{Requester: b.self, KeyID: keyID, Untaken: genID})
}

// worstCase is what the owner would reserve for m when neither the balance
// nor the ceiling limits it: the whole completion cap for every choice.
func worstCase(m *acctReserve) (amount shlyuz.Credits, tokens int64) {
	if m.Fixed > 0 {
		return m.Fixed, 0
	}
	tokens = m.completionCap()
	return m.Price.Charge(m.Prompt, shlyuz.MulChecked(tokens, max(m.N, 1))), tokens
}

// completionCap is a choice's completion cap: the client's max_tokens, else
// the model's output ceiling.
func (m *acctReserve) completionCap() int64 {
	if m.MaxTokens > 0 {
		return m.MaxTokens
	}
	return m.MaxOut
}

// LowestCap is the least completion cap a call whose client set a larger
// one is lowered to when the key's ceiling or the balance affords no more:
// below it an answer is likely cut short before it says anything useful,
// and the client is better told to top up.
const LowestCap = 1024

// floor is the least cap the call may be reserved with: the client's cap or
// LowestCap, whichever is less, or one token when the client set none; but
// no less than MinTokens (a thinking budget's need), up to the cap itself.
func (m *acctReserve) floor() int64 {
	limit := m.completionCap()
	f := int64(1)
	if m.MaxTokens > 0 {
		f = min(m.MaxTokens, LowestCap)
	}
	return max(f, min(m.MinTokens, limit), 1)
}

// reserve takes m's worst case from the key's slice; nil when there is no
// live slice, it cannot cover the whole worst case, or the key refuses the
// call (the owner then answers it, with its own error).
func (b *sliceBook) reserve(account string, m *acctReserve) (*reserved, *slice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.m[sliceKey{account, m.KeyID}]
	if s == nil || s.retired {
		return nil, nil
	}
	k := &s.key
	if k.Usable(m.Now) != nil || k.Management || k.RateLimit != nil || k.CheckModel(m.Model) != nil {
		return nil, nil
	}
	amount, tokens := worstCase(m)
	if amount <= 0 || amount > s.held-s.inUse {
		return nil, nil
	}
	s.inUse += amount
	s.used = time.Now()
	b.local.Add(1)
	return &reserved{KeyID: k.ID, AccountID: account, Tokens: tokens, Amount: amount, Epoch: s.epoch}, s
}

// release gives a call's reservation back to its slice (charged is what the
// call's settlement takes out of it, at most the reservation).
// A retired slice gives back what its last call in flight leaves.
func (b *sliceBook) release(s *slice, held, charged shlyuz.Credits) {
	b.mu.Lock()
	s.inUse -= held
	s.held -= min(max(charged, 0), held)
	back := shlyuz.Credits(0)
	if s.retired && s.inUse == 0 {
		back, s.held = s.held, 0
	}
	b.mu.Unlock()
	if back > 0 {
		b.giveBack(s.account, s.keyID, s.epoch, back)
	}
}

// refill is how much more of s a settlement of a call that reserved held
// asks for (0: none): once less than half of a slice's ask is free, and
// while no other settlement asks already (refilled ends it).
func (b *sliceBook) refill(s *slice, held shlyuz.Credits) shlyuz.Credits {
	b.mu.Lock()
	defer b.mu.Unlock()
	want, free := shlyuz.MulChecked(held, sliceCalls), s.held-s.inUse
	if s.retired || s.refilling || free >= want/2 {
		return 0
	}
	s.refilling = true
	return want - free
}

func (b *sliceBook) refilled(s *slice) {
	b.mu.Lock()
	s.refilling = false
	b.mu.Unlock()
}

// add records the owner's grant r, made with this node's reservation or
// settlement. A grant made before the key's last recall (it crossed the
// recall on its way) goes back at once: it carries the key as it was.
func (b *sliceBook) add(r *reserved) {
	if r.Slice <= 0 {
		return
	}
	key := sliceKey{r.AccountID, r.KeyID}
	b.mu.Lock()
	if (keyVersion{r.Epoch, r.KeyVersion}).before(b.recalled[key]) {
		b.mu.Unlock()
		b.giveBack(r.AccountID, r.KeyID, r.Epoch, r.Slice)
		return
	}
	defer b.mu.Unlock()
	s := b.m[key]
	if s != nil && s.epoch > r.Epoch {
		return // granted by an activation that is gone: it holds nothing for us any more
	}
	if s == nil || s.epoch != r.Epoch {
		if s != nil {
			s.retired = true // of an activation that is gone
		}
		s = &slice{account: r.AccountID, keyID: r.KeyID, epoch: r.Epoch}
		b.m[key] = s
		time.AfterFunc(sliceIdle, func() { b.idle(key, s) })
	}
	s.held = shlyuz.AddChecked(s.held, r.Slice)
	s.key = r.Key
	s.used = time.Now()
}

// idle gives back a slice unused for sliceIdle.
func (b *sliceBook) idle(key sliceKey, s *slice) {
	b.mu.Lock()
	if b.m[key] != s {
		b.mu.Unlock()
		return
	}
	if wait := sliceIdle - time.Since(s.used); wait > 0 {
		b.mu.Unlock()
		time.AfterFunc(wait, func() { b.idle(key, s) })
		return
	}
	b.mu.Unlock()
	b.retire(s)
}

// recall retires the key's slice granted before m (the owner's word), and
// remembers m so that a grant made before it, still on its way, goes back.
func (b *sliceBook) recall(m *sliceRecall) {
	key, v := sliceKey{m.Account, m.KeyID}, keyVersion{m.Epoch, m.KeyVersion}
	b.mu.Lock()
	if b.recalled[key].before(v) {
		b.recalled[key] = v
	}
	s := b.m[key]
	b.mu.Unlock()
	if s != nil && s.epoch <= m.Epoch {
		b.retire(s)
	}
}

// retire stops reserving from s and gives its unreserved part back to the
// owner; its calls in flight settle from what stays.
func (b *sliceBook) retire(s *slice) {
	key := sliceKey{s.account, s.keyID}
	b.mu.Lock()
	if b.m[key] == s {
		delete(b.m, key)
	}
	back := s.held - s.inUse
	if s.retired || back < 0 {
		back = 0
	}
	s.retired = true
	s.held -= back
	b.mu.Unlock()
	if back > 0 {
		b.giveBack(s.account, s.keyID, s.epoch, back)
	}
}

// remoteTeller is a directory that knows where an activation runs
// (cluster.Directory).
type remoteTeller interface {
	Remote(identity, kind string) bool
}

// sliced says whether calls of the account reserve from slices here: its
// activation runs on another node (or slicesHere, in tests).
func (g *Gateway) sliced(accountID string) bool {
	if g.slicesHere.Load() {
		return true
	}
	rt, ok := g.dir.(remoteTeller)
	return ok && g.lease != nil && rt.Remote(accountID, KindAccount)
}

// sliceGrant reserves a call's first reservation from this node's slice of
// its key, recorded in the call registry like the owner's grants; nil when
// the slice cannot (the owner is asked then, and msg asks it for a slice).
func (g *Gateway) sliceGrant(accountID string, msg *acctReserve) (*reserved, *slice) {
	if !g.sliced(accountID) || !g.Live() {
		return nil, nil
	}
	r, s := g.slices.reserve(accountID, msg)
	if r == nil {
		amount, _ := worstCase(msg)
		msg.Slice, msg.From = shlyuz.MulChecked(amount, sliceCalls), g.sys.Address()
		g.slices.remote.Add(1)
		return nil, nil
	}
	if !g.calls.grant(accountID, heldCall{GenID: msg.GenID, KeyID: r.KeyID, Held: r.Amount, Epoch: r.Epoch}) {
		g.slices.release(s, r.Amount, 0) // a newer activation collected the account's calls: the slice is void
		g.slices.retire(s)
		return nil, nil
	}
	return r, s
}

// recallSlices retires the key's slices that the owner's answer st names,
// waiting for each holder (bounded by the request time-out: a holder that
// does not answer is gone or fenced, and its slice with it).
func (g *Gateway) recallSlices(accountID, keyID string, st any) {
	ks, ok := st.(*keyState)
	if !ok {
		return
	}
	futures := make([]*actor.Future, 0, len(ks.SliceHolders))
	for _, addr := range ks.SliceHolders {
		msg := &sliceRecall{Account: accountID, KeyID: keyID, Epoch: ks.Epoch, KeyVersion: ks.KeyVersion}
		futures = append(futures, g.sys.Root.RequestFuture(actor.NewPID(addr, callsActorName), msg, g.timeout))
	}
	for _, f := range futures {
		_, _ = f.Result()
	}
}
