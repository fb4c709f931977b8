package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Kinds of the cluster's virtual actors.
const (
	KindKey     = "apikey"
	KindAccount = "account"
)

// keyCheck asks a key actor for its state; answered with keyState.
type keyCheck struct{ Now time.Time }

type keyState struct {
	Key      shlyuz.Key
	Spent    shlyuz.Credits // settled in the current period
	Reserved shlyuz.Credits
	Err      *shlyuz.Error
	ResetsAt time.Time
}

// keyReserve reserves a request's worst case against the key's ceiling; the
// key actor then forwards the rest of the reservation (acctReserve) to its
// account's actor, which answers the requester directly with a reserved.
type keyReserve struct {
	GenID     string
	KeyHash   string
	Prompt    int64 // reserve estimate of prompt tokens
	MaxTokens int64 // what the client asked for; 0: absent
	MaxOut    int64 // the model's output ceiling
	Price     shlyuz.Price
	// Fixed, when above zero, is the whole worst case in credits (a media call
	// priced in images, seconds or characters); Prompt, MaxTokens and Price are unused.
	Fixed shlyuz.Credits
	Now   time.Time
}

// reserved is the answer to a keyReserve, from the key actor (a refusal) or
// from the account actor (a grant or a refusal).
type reserved struct {
	KeyID     string
	AccountID string
	Tokens    int64 // completion tokens reserved for
	Amount    shlyuz.Credits
	Err       *shlyuz.Error
}

// keyAdjust lowers a reservation to what the account could afford.
type keyAdjust struct {
	GenID  string
	Amount shlyuz.Credits
}

// keySettle turns a reservation into spend (Amount may be 0: a release).
type keySettle struct {
	GenID  string
	Amount shlyuz.Credits
	Tokens int64 // the call's tokens, for a tokens-a-minute rate limit
	Now    time.Time
}

// keyRevoke tells a live key actor its key was revoked.
type keyRevoke struct{ At time.Time }

// keyLimit tells a live key actor its ceiling changed (nil: none).
type keyLimit struct{ Limit *shlyuz.Credits }

// acctReserve is the key actor's forward of a reservation to the account.
type acctReserve struct {
	GenID     string
	KeyID     string
	KeyPID    *actor.PID // told to lower or drop its hold when the account grants less or nothing
	Prompt    int64
	MaxTokens int64 // the client's; 0: absent
	KeyTokens int64 // what the key affords
	KeyAmount shlyuz.Credits
	Price     shlyuz.Price
	Fixed     shlyuz.Credits // a media call's worst case in credits; see keyReserve
	Now       time.Time
}

// acctSettle debits Amount for a finished request (0: a release only) and
// journals the generation record.
type acctSettle struct {
	GenID      string
	KeyID      string
	Amount     shlyuz.Credits
	Generation *shlyuz.Generation
	Now        time.Time
}

// settleAck answers an acctSettle sent as a request (durable settlement)
// once its charge is committed, or refused by the store.
type settleAck struct{ Refused bool }

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
