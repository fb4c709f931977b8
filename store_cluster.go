package shlyuz

import (
	"context"
	"errors"
	"time"
)

// Cluster membership and account ownership. The database decides
// who may grant from an account: a node holds a lease row in cluster_members,
// and an account's balance row names the member that owns it. A claim
// succeeds only when the row is unowned, owned by the claimer, or owned by a
// member whose lease has expired.

// ErrOwnedElsewhere is what ClaimBalanceAs returns while another member with
// a live lease owns the account.
var ErrOwnedElsewhere = errors.New("owned by another live member")

// ErrMemberConflict is what JoinMember returns when the join is exclusive
// (a single-node gateway) and another member holds a live lease, or when a
// live member runs in the other mode.
var ErrMemberConflict = errors.New("another gateway holds a live lease on this database")

// SoleServer is a store that can prove no other process serves it as a single
// node: an OS file lock on SQLite's file, a session advisory lock on
// PostgreSQL, both let go by the operating system or the server the moment
// their holder dies (kill -9 included). A single node that holds it knows the
// single-node leases it finds are its dead predecessors' and serves at once
// instead of waiting them out.
type SoleServer interface {
	// LockSole takes the lock without waiting and holds it until the store is
	// closed: true when taken (again, by this store); an error wrapping
	// ErrMemberConflict when another process holds it; false and no error
	// when the store cannot tell.
	LockSole(ctx context.Context) (bool, error)
}

// Member is one gateway node's lease in the shared store.
type Member struct {
	ID         string    `json:"id"`
	Address    string    `json:"address"` // where its actors (or its HTTP) are reachable
	Mode       string    `json:"mode"`    // single or sql
	LeaseUntil time.Time `json:"lease_until"`
	StartedAt  time.Time `json:"started_at"`
}

// ClusterStore keeps the member leases and the lease-gated account claims.
// Lease instants are the callers' clocks (documented: nodes' clocks must agree
// to well within a lease's margin).
type ClusterStore interface {
	// JoinMember inserts (or replaces) the member's lease row. A "single"
	// member, or any member while a live member of another mode exists, is
	// refused with ErrMemberConflict (and not inserted); the error's live
	// members are returned.
	JoinMember(ctx context.Context, m Member, now time.Time) ([]Member, error)
	// RenewMember extends the lease to until if it is still live at now; false
	// when the row is gone or its lease had lapsed (others may have claimed its
	// accounts: the member must fence itself).
	RenewMember(ctx context.Context, id string, until, now time.Time) (bool, error)
	// LeaveMember deletes the lease row and releases the accounts it owns.
	LeaveMember(ctx context.Context, id string) error
	// Members lists the members whose lease is live at now, oldest first.
	Members(ctx context.Context, now time.Time) ([]Member, error)
	// ClaimBalanceAs raises the account's epoch and makes member its owner,
	// unless another member with a live lease owns it (ErrOwnedElsewhere).
	ClaimBalanceAs(ctx context.Context, accountID, member string, now time.Time) (Balance, error)
	// ReleaseBalance clears the owner if the account is still owned by member
	// at epoch (an idle activation handing the account back).
	ReleaseBalance(ctx context.Context, accountID, member string, epoch int64) error
	// Owner is the member that owns the account ("" when none).
	Owner(ctx context.Context, accountID string) (string, error)
}
