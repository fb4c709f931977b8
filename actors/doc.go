// Package actors owns the live state of the gateway: one key actor per API key
// and one account actor per account (protoactor cluster kinds that load their
// state from the store on activation and keep limits, reservations and spend in
// memory), one provider actor per upstream (a circuit breaker and a concurrency
// cap), and the journal that group-commits ledger entries to the store.
// Gateway is the one entry point the HTTP layer calls; it runs in the
// request's goroutine and talks to the actors by message.
package actors
