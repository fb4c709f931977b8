package actors

import (
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The owner's side of slices (slices.go): a node's slice of a key is one
// hold of the account, under sliceID, counted against the balance and the
// key's ceiling like a call's. It grows when the owner grants more with a
// reservation, shrinks by each charge settled from it and by what the node
// gives back, and goes with the node's other holds when the node leaves.

// sliceShare bounds a grant: at most this fraction of what the balance and
// the ceiling have free after the call that asks, so that one node's slice
// never starves the others; and a grant is at least sliceLeast calls' worst
// case, so that near the end of a balance or a ceiling (under 32 calls' worth
// left) no slice is granted and every call is the owner's to admit or refuse.
const (
	sliceShare = 8
	sliceLeast = 4
)

// sliceID is the hold of requester's slice of the key.
func sliceID(requester, keyID string) string { return "slice/" + requester + "/" + keyID }

// grantSlice adds to the requester's slice of the key after r, a granted
// reservation of m.
func (a *accountActor) grantSlice(m *acctReserve, r *reserved) {
	if m.Slice > 0 && r.Err == nil {
		r.Slice, r.Key, r.KeyVersion = a.growSlice(m.Requester, m.From, r.KeyID, m.Slice, shlyuz.MulChecked(r.Amount, sliceLeast), m.Now)
		if h, ok := a.holds[m.GenID]; ok && r.Slice > 0 { // remembered until the call settles, in case the answer is lost
			h.sliced = r.Slice
			a.holds[m.GenID] = h
		}
	}
}

// growSlice adds up to ask to the requester's slice of the key, and returns
// what it added (and the key, at its version): nothing for a key with a rate limit
// (admission counts every call here), nor when its share of what the
// balance and the ceiling have free is below least.
func (a *accountActor) growSlice(requester, from, keyID string, ask, least shlyuz.Credits, now time.Time) (shlyuz.Credits, shlyuz.Key, int64) {
	k, ok := a.keys[keyID]
	if !ok || k.key.RateLimit != nil || k.key.Management || a.loadErr != nil {
		return 0, shlyuz.Key{}, 0
	}
	s := min(ask, (a.balance.Available(now)-a.reserved)/sliceShare)
	if left, limited := k.left(); limited {
		s = min(s, left/sliceShare)
	}
	if s < max(least, 1) {
		return 0, shlyuz.Key{}, 0
	}
	id := sliceID(requester, keyID)
	h, _ := a.dropHold(id)
	h.amount = shlyuz.AddChecked(h.amount, s)
	h.keyID, h.requester, h.from = keyID, requester, from
	a.addHold(id, h)
	return s, k.key, k.version
}

// chargeSlice takes a call's charge out of its requester's slice: the slice
// shrinks by the charge (the rest of the call's reservation stays in the
// slice, with the requester), and the charge settles as the call's hold. No
// slice of that activation, or one smaller than the charge (never, while the
// requester's view is the smaller): no hold, the charge is refused.
func (a *accountActor) chargeSlice(m *acctSettle) (hold, bool) {
	id := sliceID(m.Requester, m.KeyID)
	s, ok := a.holds[id]
	charge := min(max(m.Amount, 0), m.Held)
	if !ok || m.Epoch != a.balance.Epoch || charge > s.amount {
		return hold{}, false
	}
	a.shrinkSlice(id, s, charge)
	return hold{amount: charge, keyID: s.keyID}, true
}

// returnSlice takes back what a node gives back of its slice.
func (a *accountActor) returnSlice(m *sliceReturn) {
	if m.Untaken != "" {
		a.takeBack(m.Untaken)
		return
	}
	id := sliceID(m.Requester, m.KeyID)
	if s, ok := a.holds[id]; ok && m.Epoch == a.balance.Epoch {
		a.shrinkSlice(id, s, min(max(m.Amount, 0), s.amount))
	}
}

// takeBack shrinks a slice by the grant made with the answer to genID, a
// reservation's or a settlement's, which its requester gave up: the
// requester never counted it, so without this it would stay held here,
// spent by nobody, until the node left or the account moved. Only this
// activation's own record of the grant counts (the call's hold, or the
// settlement's entry in its book), and it is taken back once; a grant
// forgotten already (its record gone) stays, as it did before: held,
// never spent. The requester's view of the slice stays the smaller.
func (a *accountActor) takeBack(genID string) {
	var id string
	var grant shlyuz.Credits
	if h, ok := a.holds[genID]; ok && h.sliced > 0 {
		id, grant = sliceID(h.requester, h.keyID), h.sliced
		h.sliced = 0
		a.holds[genID] = h
	} else if p := a.settled.get(genID); p != nil && p.slice > 0 {
		id, grant = p.sliceID, p.slice
		p.slice = 0
	}
	if s, ok := a.holds[id]; ok && grant > 0 {
		a.shrinkSlice(id, s, min(grant, s.amount))
	}
}

func (a *accountActor) shrinkSlice(id string, s hold, by shlyuz.Credits) {
	a.dropHold(id)
	if s.amount -= by; s.amount > 0 {
		a.addHold(id, s)
	}
}

// sliceHolders answers a key's revocation or new ceiling with the nodes
// that hold a slice of it: the caller recalls them (Gateway.recallSlices),
// so that from its answer on, no slice reserves for the key as it was.
func (a *accountActor) sliceHolders(keyID string) *keyState {
	st := &keyState{Epoch: a.balance.Epoch}
	if k, ok := a.keys[keyID]; ok {
		st.KeyVersion = k.version
	}
	for _, h := range a.holds {
		if h.keyID == keyID && h.from != "" { // only a slice's hold has a from (growSlice)
			st.SliceHolders = append(st.SliceHolders, h.from)
		}
	}
	return st
}
