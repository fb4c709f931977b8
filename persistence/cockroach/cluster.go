package cockroach

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// clusterTx adapts a pgx transaction to sqlutil.ClusterTx.
type clusterTx struct{ tx pgx.Tx }

func (c clusterTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.tx.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

type noRowsScanner struct{ row pgx.Row }

func (s noRowsScanner) Scan(dest ...any) error {
	err := s.row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return shlyuz.ErrNoRows
	}
	return err
}

func (c clusterTx) QueryRow(ctx context.Context, query string, args ...any) sqlutil.Scanner {
	return noRowsScanner{c.tx.QueryRow(ctx, query, args...)}
}

func (c clusterTx) Query(ctx context.Context, query string, args ...any) ([]shlyuz.Member, error) {
	rows, err := c.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, rowTo(sqlutil.ScanMember))
}

// inClusterTx runs fn in a retried serializable transaction; what names it in errors.
func (s *Store) inClusterTx(ctx context.Context, what string, fn func(clusterTx) error) error {
	if err := s.inTx(ctx, func(tx pgx.Tx) error { return fn(clusterTx{tx}) }); err != nil {
		return fmt.Errorf("cockroach: %s: %w", what, err)
	}
	return nil
}

// JoinMember inserts the member's lease unless a live member forbids it.
func (s *Store) JoinMember(ctx context.Context, m shlyuz.Member, now time.Time) ([]shlyuz.Member, error) {
	var others []shlyuz.Member
	err := s.inClusterTx(ctx, "join member "+m.ID, func(tx clusterTx) error {
		var err error
		others, err = sqlutil.JoinMember(ctx, tx, m, now)
		return err
	})
	return others, err
}

// RenewMember extends the member's lease; false when its row is gone.
func (s *Store) RenewMember(ctx context.Context, id string, until, now time.Time) (bool, error) {
	var n int64
	err := s.inClusterTx(ctx, "renew member "+id, func(tx clusterTx) error {
		var err error
		n, err = tx.Exec(ctx, sqlutil.RenewMemberQuery, sqlutil.Micros(until), id, sqlutil.Micros(now))
		return err
	})
	return n == 1, err
}

// LeaveMember deletes the lease and releases the member's accounts.
func (s *Store) LeaveMember(ctx context.Context, id string) error {
	return s.inClusterTx(ctx, "leave member "+id, func(tx clusterTx) error { return sqlutil.LeaveMember(ctx, tx, id) })
}

// Members lists the live members.
func (s *Store) Members(ctx context.Context, now time.Time) ([]shlyuz.Member, error) {
	var out []shlyuz.Member
	err := s.inClusterTx(ctx, "members", func(tx clusterTx) error {
		var err error
		out, err = tx.Query(ctx, sqlutil.LiveMembersQuery, sqlutil.Micros(now))
		return err
	})
	return out, err
}

// ClaimBalanceAs is the lease-gated claim.
func (s *Store) ClaimBalanceAs(ctx context.Context, accountID, member string, now time.Time) (shlyuz.Balance, error) {
	unlock, err := s.lockAccounts(ctx, []string{accountID})
	if err != nil {
		return shlyuz.Balance{}, fmt.Errorf("cockroach: claim balance of %s: %w", accountID, err)
	}
	defer unlock()
	var b shlyuz.Balance
	err = s.inClusterTx(ctx, "claim balance of "+accountID, func(tx clusterTx) error {
		var err error
		b, err = sqlutil.ClaimBalanceAs(ctx, tx, accountID, member, now)
		return err
	})
	return b, err
}

// ReleaseBalance clears the owner if it is still member at epoch.
func (s *Store) ReleaseBalance(ctx context.Context, accountID, member string, epoch int64) error {
	return s.inClusterTx(ctx, "release balance of "+accountID, func(tx clusterTx) error {
		_, err := tx.Exec(ctx, sqlutil.ReleaseBalanceQuery, accountID, member, epoch)
		return err
	})
}

// Owner is the member that owns the account.
func (s *Store) Owner(ctx context.Context, accountID string) (string, error) {
	var owner string
	err := s.inClusterTx(ctx, "owner of "+accountID, func(tx clusterTx) error {
		return tx.QueryRow(ctx, sqlutil.OwnerQuery, accountID).Scan(&owner)
	})
	return owner, err
}
