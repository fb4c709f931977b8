package actors

// SetSlicesHere makes g reserve from slices for the accounts it serves
// itself too, as it does for accounts served on other nodes (slices.go).
func SetSlicesHere(g *Gateway, on bool) { g.slicesHere.Store(on) }

// SetDurable turns durable settlement on or off (between calls only):
// with it, a slice also grows with a settlement's acknowledgement.
func SetDurable(g *Gateway, on bool) { g.durable = on }

// SliceReservations counts the calls g reserved from a slice, and those it
// reserved at the owner since slices are on.
func SliceReservations(g *Gateway) (sliced, owner int64) {
	return g.slices.local.Load(), g.slices.remote.Load()
}
