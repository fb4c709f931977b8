package sqlutil

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shlyuz/shlyuz"
)

// ClusterTx is what the shared cluster queries need of a store's
// transaction (its QueryRow's Scan reports a missing row as
// shlyuz.ErrNoRows). Queries are written with $1, $2, … placeholders; a dialect
// that spells them otherwise rewrites them.
type ClusterTx interface {
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	QueryRow(ctx context.Context, query string, args ...any) Scanner
	Query(ctx context.Context, query string, args ...any) ([]shlyuz.Member, error)
}

// MemberColumns are the columns of a member row, in ScanMember's order.
const MemberColumns = `id, address, mode, lease_until, started_at`

// ScanMember reads a row of MemberColumns.
func ScanMember(row Scanner) (shlyuz.Member, error) {
	var m shlyuz.Member
	var until, started int64
	if err := row.Scan(&m.ID, &m.Address, &m.Mode, &until, &started); err != nil {
		return shlyuz.Member{}, err
	}
	m.LeaseUntil, m.StartedAt = Time(until), Time(started)
	return m, nil
}

// LiveMembersQuery lists the members whose lease is live at $1.
const LiveMembersQuery = `SELECT ` + MemberColumns + ` FROM cluster_members WHERE lease_until > $1 ORDER BY started_at, id`

// JoinMember inserts m's lease unless a live member forbids it (see
// shlyuz.ClusterStore.JoinMember). It runs inside the caller's transaction.
func JoinMember(ctx context.Context, tx ClusterTx, m shlyuz.Member, now time.Time) ([]shlyuz.Member, error) {
	live, err := tx.Query(ctx, LiveMembersQuery, Micros(now))
	if err != nil {
		return nil, err
	}
	var others []shlyuz.Member
	for _, o := range live {
		if o.ID != m.ID {
			others = append(others, o)
		}
	}
	for _, o := range others {
		if m.Mode == "single" || o.Mode != m.Mode {
			return others, fmt.Errorf("member %s (%s mode, lease until %s): %w",
				o.ID, o.Mode, o.LeaseUntil.Format(time.RFC3339Nano), shlyuz.ErrMemberConflict)
		}
	}
	// Lapsed rows go: a single node whose row is gone knows it was replaced.
	if _, err := tx.Exec(ctx, `DELETE FROM cluster_members WHERE id = $1 OR lease_until <= $2`, m.ID, Micros(now)); err != nil {
		return nil, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO cluster_members (`+MemberColumns+`) VALUES ($1, $2, $3, $4, $5)`,
		m.ID, m.Address, m.Mode, Micros(m.LeaseUntil), Micros(m.StartedAt))
	return others, err
}

// RenewMemberQuery extends a lease that is still live: $1 the new end, $2
// the member, $3 now.
const RenewMemberQuery = `UPDATE cluster_members SET lease_until = $1 WHERE id = $2 AND lease_until > $3`

// LeaveMember deletes the lease and releases the accounts the member owns.
func LeaveMember(ctx context.Context, tx ClusterTx, id string) error {
	if _, err := tx.Exec(ctx, `UPDATE balances SET owner = '' WHERE owner = $1`, id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `DELETE FROM cluster_members WHERE id = $1`, id)
	return err
}

// ClaimBalanceAs is the lease-gated claim (see shlyuz.ClusterStore).
func ClaimBalanceAs(ctx context.Context, tx ClusterTx, accountID, member string, now time.Time) (shlyuz.Balance, error) {
	b, err := ScanBalance(tx.QueryRow(ctx, `UPDATE balances SET epoch = epoch + 1, owner = $2
		WHERE account_id = $1 AND (owner = '' OR owner = $2 OR NOT EXISTS (
			SELECT 1 FROM cluster_members m WHERE m.id = balances.owner AND m.lease_until > $3))
		RETURNING `+BalanceColumns, accountID, member, Micros(now)))
	if !errors.Is(err, shlyuz.ErrNoRows) {
		return b, err
	}
	var owner string // no row was claimed: an unknown account, or a live owner elsewhere
	if err := tx.QueryRow(ctx, OwnerQuery, accountID).Scan(&owner); err != nil {
		return shlyuz.Balance{}, err
	}
	return shlyuz.Balance{}, fmt.Errorf("account %s is owned by %s: %w", accountID, owner, shlyuz.ErrOwnedElsewhere)
}

// ReleaseBalanceQuery clears an owner still at its epoch: $1 account, $2 member, $3 epoch.
const ReleaseBalanceQuery = `UPDATE balances SET owner = '' WHERE account_id = $1 AND owner = $2 AND epoch = $3`

// OwnerQuery reads an account's owner: $1 account.
const OwnerQuery = `SELECT owner FROM balances WHERE account_id = $1`
