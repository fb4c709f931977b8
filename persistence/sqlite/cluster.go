package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// dollar matches the $N placeholders of the shared queries; SQLite spells them ?N.
var dollar = regexp.MustCompile(`\$([0-9]+)`)

func rebind(q string) string { return dollar.ReplaceAllString(q, "?$1") }

// clusterTx adapts a transaction (or the pool, for reads) to sqlutil.ClusterTx.
type clusterTx struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
}

func (c clusterTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := c.q.ExecContext(ctx, rebind(query), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

type noRowsScanner struct{ row *sql.Row }

func (s noRowsScanner) Scan(dest ...any) error {
	err := s.row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return shlyuz.ErrNoRows
	}
	return err
}

func (c clusterTx) QueryRow(ctx context.Context, query string, args ...any) sqlutil.Scanner {
	return noRowsScanner{c.q.QueryRowContext(ctx, rebind(query), args...)}
}

func (c clusterTx) Query(ctx context.Context, query string, args ...any) ([]shlyuz.Member, error) {
	rows, err := c.q.QueryContext(ctx, rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []shlyuz.Member
	for rows.Next() {
		m, err := sqlutil.ScanMember(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// JoinMember inserts the member's lease unless a live member forbids it.
func (s *Store) JoinMember(ctx context.Context, m shlyuz.Member, now time.Time) ([]shlyuz.Member, error) {
	var others []shlyuz.Member
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		others, err = sqlutil.JoinMember(ctx, clusterTx{tx}, m, now)
		return err
	})
	if err != nil {
		return others, fmt.Errorf("sqlite: join member %s: %w", m.ID, err)
	}
	return others, nil
}

// RenewMember extends the member's lease; false when its row is gone.
func (s *Store) RenewMember(ctx context.Context, id string, until, now time.Time) (bool, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = clusterTx{tx}.Exec(ctx, sqlutil.RenewMemberQuery, sqlutil.Micros(until), id, sqlutil.Micros(now))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("sqlite: renew member %s: %w", id, err)
	}
	return n == 1, nil
}

// LeaveMember deletes the lease and releases the member's accounts.
func (s *Store) LeaveMember(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error { return sqlutil.LeaveMember(ctx, clusterTx{tx}, id) })
}

// Members lists the live members.
func (s *Store) Members(ctx context.Context, now time.Time) ([]shlyuz.Member, error) {
	return clusterTx{s.db}.Query(ctx, sqlutil.LiveMembersQuery, sqlutil.Micros(now))
}

// ClaimBalanceAs is the lease-gated claim.
func (s *Store) ClaimBalanceAs(ctx context.Context, accountID, member string, now time.Time) (shlyuz.Balance, error) {
	var b shlyuz.Balance
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		b, err = sqlutil.ClaimBalanceAs(ctx, clusterTx{tx}, accountID, member, now)
		return err
	})
	if err != nil {
		return shlyuz.Balance{}, fmt.Errorf("sqlite: claim balance of %s: %w", accountID, err)
	}
	return b, nil
}

// ReleaseBalance clears the owner if it is still member at epoch.
func (s *Store) ReleaseBalance(ctx context.Context, accountID, member string, epoch int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := clusterTx{tx}.Exec(ctx, sqlutil.ReleaseBalanceQuery, accountID, member, epoch)
		return err
	})
}

// Owner is the member that owns the account.
func (s *Store) Owner(ctx context.Context, accountID string) (string, error) {
	var owner string
	if err := (clusterTx{s.db}).QueryRow(ctx, sqlutil.OwnerQuery, accountID).Scan(&owner); err != nil {
		return "", fmt.Errorf("sqlite: owner of %s: %w", accountID, err)
	}
	return owner, nil
}
