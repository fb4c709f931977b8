// Package payments holds one subfolder per acquirer: the client of its API
// and a fake of it for tests and demos. The acquirers know nothing of
// accounts or credits; billing/ credits an account once per confirmed
// payment through the gateway's ledger.
package payments
