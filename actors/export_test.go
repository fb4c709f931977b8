package actors

// SetSlicesHere makes g reserve from slices for the accounts it serves
// itself too, as it does for accounts served on other nodes (slices.go).
func SetSlicesHere(g *Gateway, on bool) { g.slicesHere.Store(on) }

// SliceReservations counts the calls g reserved from a slice.
func SliceReservations(g *Gateway) int64 { return g.slices.local.Load() }
