package actors

import (
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// SetSlicesHere makes g reserve from slices for the accounts it serves
// itself too, as it does for accounts served on other nodes (slices.go).
func SetSlicesHere(g *Gateway, on bool) { g.slicesHere.Store(on) }

// SetDurable turns durable settlement on or off (between calls only):
// with it, a slice also grows with a settlement's acknowledgement.
func SetDurable(g *Gateway, on bool) { g.durable = on }

// SetTimeout sets g's request time-out (between calls only), which also
// bounds how long a settlement is sent again; it returns the one before.
func SetTimeout(g *Gateway, d time.Duration) time.Duration {
	old := g.timeout
	g.timeout = d
	return old
}

// SliceReservations counts the calls g reserved from a slice, and those it
// reserved at the owner since slices are on.
func SliceReservations(g *Gateway) (sliced, owner int64) {
	return g.slices.local.Load(), g.slices.remote.Load()
}

// LossyDirectory is a Directory that loses, on demand, the answers to a
// node's asks for more of its slice: the account's activation handles the
// request, and its answer never comes back (the request times out).
type LossyDirectory struct {
	Directory
	reserves atomic.Bool  // lose the answers to reservations that ask for a slice
	refills  atomic.Bool  // lose every acknowledgement of settlements that ask for a refill
	granted  atomic.Int64 // answers lost that carried a grant
}

// NewLossyDirectory wraps d, losing nothing until told to.
func NewLossyDirectory(d Directory) *LossyDirectory { return &LossyDirectory{Directory: d} }

// LoseReservations turns losing the answers to reservations that ask for a slice on or off.
func (d *LossyDirectory) LoseReservations(on bool) { d.reserves.Store(on) }

// LoseRefills turns losing the acknowledgements of settlements that ask for a refill on or off.
func (d *LossyDirectory) LoseRefills(on bool) { d.refills.Store(on) }

// LostGrants counts the answers lost that carried more of a slice.
func (d *LossyDirectory) LostGrants() int64 { return d.granted.Load() }

func (d *LossyDirectory) Request(identity, kind string, msg any, timeout time.Duration) (any, error) {
	res, err := d.Directory.Request(identity, kind, msg, timeout)
	if err != nil {
		return res, err
	}
	lose := false
	switch m := msg.(type) {
	case *acctReserve:
		if r, ok := res.(*reserved); ok && m.Slice > 0 && d.reserves.Load() {
			lose = true
			if r.Slice > 0 {
				d.granted.Add(1)
			}
		}
	case *acctSettle:
		if a, ok := res.(*settleAck); ok && m.Refill > 0 && d.refills.Load() {
			lose = true
			if a.Slice > 0 {
				d.granted.Add(1)
			}
		}
	}
	if lose {
		return nil, actor.ErrTimeout
	}
	return res, nil
}
