package actors

import (
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// KindAccount is the kind of the cluster's account actors. A key has no
// actor of its own: its ceiling, spend and holds live in its account's
// activation, so one fenced claim covers both.
const KindAccount = "account"

// keyCheck asks an account actor for one of its keys' state; answered with keyState.
type keyCheck struct {
	KeyID string
	Now   time.Time
}

type keyState struct {
	Key      shlyuz.Key
	Spent    shlyuz.Credits // settled in the current period
	Reserved shlyuz.Credits
	Err      *shlyuz.Error
	ResetsAt time.Time
	// SliceHolders, in the answer to a keyRevoke or keyLimit, are the actor
	// addresses of the nodes holding a slice of the key granted at Epoch:
	// the caller recalls them before it answers (slices.go).
	SliceHolders []string
	Epoch        int64
	KeyVersion   int64
}

// acctReserve reserves a request's worst case against the key's ceiling and
// the account's balance, in one step; answered with reserved.
type acctReserve struct {
	GenID     string
	KeyID     string
	Requester string // the member whose call it is; its holds go when it leaves
	Model     string // the model called: the key's allowed_models must allow it
	Prompt    int64  // reserve estimate of prompt tokens
	MaxTokens int64  // what the client asked for; 0: absent
	MaxOut    int64  // the model's output ceiling
	// MinTokens is the least cap the request can be served with (a thinking
	// budget needs room above it); 0: none beyond the floor (acctReserve.floor).
	MinTokens int64
	N         int64 // choices asked for (0 or 1: one); each may produce the ceiling
	Price     shlyuz.PriceBound
	// Fixed, when above zero, is the whole worst case in credits (a media call
	// priced in images, seconds or characters); Prompt, MaxTokens and Price are unused.
	Fixed shlyuz.Credits
	Now   time.Time
	// Slice, when above zero, asks for that much more of the key's ceiling and
	// the balance for the requester's slice (slices.go); From is the
	// requester's actor address, where a recall goes.
	Slice shlyuz.Credits
	From  string
}

// reserved is the answer to an acctReserve: a grant by the activation at
// Epoch, or a refusal.
type reserved struct {
	KeyID     string
	AccountID string
	Tokens    int64 // completion tokens reserved for, per choice
	Amount    shlyuz.Credits
	Epoch     int64
	Err       *shlyuz.Error
	// Slice is what was added to the requester's slice of the key, and Key
	// the key then (at KeyVersion), for the requester's own checks.
	Slice      shlyuz.Credits
	Key        shlyuz.Key
	KeyVersion int64
}

// keyRevoke tells a live account activation its key was revoked.
type keyRevoke struct {
	KeyID string
	At    time.Time
}

// keyLimit tells a live account activation its key's ceiling changed (nil: none).
type keyLimit struct {
	KeyID string
	Limit *shlyuz.Credits
}

// keyUpdate tells a live account activation its key's name, ceiling,
// period or disabled state changed (Key as stored now).
type keyUpdate struct {
	Key shlyuz.Key
	Now time.Time
}

// acctSettle debits Amount for a finished request (0: a release only) and
// journals the generation record. Sent as a request, it is answered with a
// settleAck once the charge is committed, and may be sent again: it is
// applied once.
type acctSettle struct {
	GenID      string
	KeyID      string
	Amount     shlyuz.Credits
	Tokens     int64 // the call's tokens, for a key's tokens-a-minute rate limit
	Generation *shlyuz.Generation
	Now        time.Time
	// A call reserved from its node's slice (Slice) settles against the
	// slice of Requester granted at Epoch, out of the Held it reserved there;
	// Refill asks for that much more of the slice with the answer (From: as
	// in acctReserve).
	Slice     bool
	Requester string
	Epoch     int64
	Held      shlyuz.Credits
	Refill    shlyuz.Credits
	From      string
}

// sliceReturn gives the unused Amount of a requester's slice of a key back
// to the activation that granted it at Epoch (one-way); or, with Untaken,
// whatever the answer to the reservation or settlement Untaken (a
// generation id) added to the slice: the requester gave that answer up, so
// it never counted the grant (account_slices.go, takeBack).
type sliceReturn struct {
	Requester string
	KeyID     string
	Amount    shlyuz.Credits
	Epoch     int64
	Untaken   string
}

// sliceRecall tells a node's call registry to retire its slice of the
// account's key granted at Epoch: the key was revoked or its ceiling changed.
// Sent as a request, it is answered (with a drain) once the slice is retired.
type sliceRecall struct {
	Account    string
	KeyID      string
	Epoch      int64
	KeyVersion int64 // the key's after the change: a grant of an older version is given back
}

// settleAck answers an acctSettle sent as a request: committed by the
// activation at Epoch, refused for good (no hold of this call here), or
// Moved (this activation lost the account: settle again at its owner).
type settleAck struct {
	Refused bool
	Moved   bool
	Epoch   int64
	// Slice is what was added to the requester's slice for an acctSettle's
	// Refill, and Key the key then (at KeyVersion).
	Slice      shlyuz.Credits
	Key        shlyuz.Key
	KeyVersion int64
}

// drain asks an actor to answer once everything sent to it before is done.
type drain struct{}

// acctBalance asks for the balance; answered with acctBalanceReply.
type acctBalance struct{ Now time.Time }

type acctBalanceReply struct {
	Balance  shlyuz.Balance
	Reserved shlyuz.Credits
	Err      *shlyuz.Error
}

// acctApply writes an operator's entry (a top-up, a plan) durably, then applies it.
type acctApply struct {
	Entry shlyuz.LedgerEntry
	Plan  *shlyuz.Plan // a plan purchase: the entry is built from it
	Now   time.Time
}

type acctApplied struct {
	Balance   shlyuz.Balance
	Duplicate bool
	Err       *shlyuz.Error
}

// holdsQuery asks a node's call registry for its calls in flight on the
// account; from then on it voids grants older than Epoch. Answered with holdsReport.
type holdsQuery struct {
	Account string
	Epoch   int64
}

type holdsReport struct{ Calls []heldCall }

// heldCall is one call in flight that an account activation granted.
type heldCall struct {
	GenID     string
	KeyID     string
	Held      shlyuz.Credits
	Epoch     int64 // of the activation that granted it
	Requester string
}

// requestersLeft tells an account activation which members left the
// cluster: the holds of their calls are released.
type requestersLeft struct{ IDs []string }
