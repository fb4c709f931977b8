package shlyuz

import "time"

// Errors of a gateway cluster.

// ErrAccountMoving is an account owned by another node whose lease is live
// (it is moving, or that node serves it): retry shortly.
func ErrAccountMoving() *Error {
	e := newErr(503, TypeUnavailable, "account_moving", "The account is being served by another gateway node; retry in a moment.")
	e.RetryAfter = time.Second
	return e
}

// ErrNodeFenced is a node that lost its cluster lease: it grants nothing more.
func ErrNodeFenced() *Error {
	e := newErr(503, TypeUnavailable, "node_fenced", "This gateway node lost its cluster lease and serves nothing more; retry on another node.")
	e.RetryAfter = time.Second
	return e
}

// ErrChargeNotCommitted is a reply whose charge could not be committed
// (durable settlement): the reply is withheld and nothing is charged.
func ErrChargeNotCommitted() *Error {
	e := newErr(503, TypeUnavailable, "charge_not_committed", "The reply could not be billed (the account moved to another gateway node), so it is withheld and nothing was charged; retry.")
	e.RetryAfter = time.Second
	return e
}
