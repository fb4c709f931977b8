// Package actors owns the live state of the gateway: one account actor per
// account, which keeps its keys' ceilings too (a protoactor cluster kind that
// claims the account, loads its state from the store on activation and keeps
// limits, reservations and spend in memory), a registry of this node's calls
// in flight (adopted as holds by a new activation), one provider actor per upstream (a circuit breaker and a concurrency
// cap), and the journal that group-commits ledger entries to the store.
// Gateway is the one entry point the HTTP layer calls; it runs in the
// request's goroutine and talks to the actors by message.
package actors
