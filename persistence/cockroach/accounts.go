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

// CreateAccount stores a new account and its empty balance (epoch 0).
// A taken email (or id) is shlyuz.ErrDuplicate.
func (s *Store) CreateAccount(ctx context.Context, a shlyuz.Account) error {
	if a.ID == "" || a.Email == "" {
		return errors.New("cockroach: create account: id and email are required")
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx,
			`INSERT INTO accounts (id, email, created_at) VALUES ($1, $2, $3)`,
			a.ID, a.Email, sqlutil.Micros(a.CreatedAt))
		if isUniqueViolation(err) {
			return fmt.Errorf("cockroach: create account %s <%s>: %w", a.ID, a.Email, shlyuz.ErrDuplicate)
		}
		if err != nil {
			return fmt.Errorf("cockroach: create account %s: %w", a.ID, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO balances (account_id) VALUES ($1)`, a.ID); err != nil {
			return fmt.Errorf("cockroach: create balance of %s: %w", a.ID, err)
		}
		return nil
	})
}

// Account returns the account with the id, or shlyuz.ErrNoRows.
func (s *Store) Account(ctx context.Context, id string) (shlyuz.Account, error) {
	var a shlyuz.Account
	var created int64
	err := s.read(ctx, func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, `SELECT id, email, created_at FROM accounts WHERE id = $1`, id).
			Scan(&a.ID, &a.Email, &created)
	})
	if err != nil {
		return shlyuz.Account{}, notFound(err, "account "+id)
	}
	a.CreatedAt = sqlutil.Time(created)
	return a, nil
}

// oneKey reads the key a single-row query selects.
func (s *Store) oneKey(ctx context.Context, what, query string, arg string) (shlyuz.Key, error) {
	var k shlyuz.Key
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		k, err = sqlutil.ScanKey(s.pool.QueryRow(ctx, query, arg))
		return err
	})
	if err != nil {
		return shlyuz.Key{}, notFound(err, what)
	}
	return k, nil
}

// CreateKey stores a key record (its hash, never the plain key) unless the
// account has max keys that are not revoked (shlyuz.ErrLimitReached; max 0:
// no cap), the count and the insert in one serializable transaction. A
// taken id or hash is shlyuz.ErrDuplicate; an unknown account is
// shlyuz.ErrNoRows.
func (s *Store) CreateKey(ctx context.Context, k shlyuz.Key, max int) error {
	if k.ID == "" || k.Hash == "" {
		return errors.New("cockroach: create key: id and hash are required")
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if max > 0 {
			var n int
			if err := tx.QueryRow(ctx, rebind(sqlutil.CountKeys), k.AccountID).Scan(&n); err != nil {
				return fmt.Errorf("cockroach: count keys of %s: %w", k.AccountID, err)
			}
			if n >= max {
				return fmt.Errorf("cockroach: create key: %s has %d: %w", k.AccountID, n, shlyuz.ErrLimitReached)
			}
		}
		_, err := tx.Exec(ctx, rebind(sqlutil.InsertKey), sqlutil.KeyArgs(k)...)
		switch {
		case isUniqueViolation(err):
			return fmt.Errorf("cockroach: create key %s: %w", k.ID, shlyuz.ErrDuplicate)
		case isForeignKeyViolation(err):
			return fmt.Errorf("cockroach: create key %s: account %s: %w", k.ID, k.AccountID, shlyuz.ErrNoRows)
		case err != nil:
			return fmt.Errorf("cockroach: create key %s: %w", k.ID, err)
		}
		return nil
	})
}

// KeyByHash returns the key whose secret hashes to hash, or shlyuz.ErrNoRows.
func (s *Store) KeyByHash(ctx context.Context, hash string) (shlyuz.Key, error) {
	return s.oneKey(ctx, "key by hash", `SELECT `+sqlutil.KeyColumns+` FROM api_keys WHERE hash = $1`, hash)
}

// Key returns the key with the id, or shlyuz.ErrNoRows.
func (s *Store) Key(ctx context.Context, id string) (shlyuz.Key, error) {
	return s.oneKey(ctx, "key "+id, `SELECT `+sqlutil.KeyColumns+` FROM api_keys WHERE id = $1`, id)
}

// KeysOf lists the account's keys, oldest first.
func (s *Store) KeysOf(ctx context.Context, accountID string) ([]shlyuz.Key, error) {
	var keys []shlyuz.Key
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, `SELECT `+sqlutil.KeyColumns+` FROM api_keys WHERE account_id = $1`, accountID)
		if err != nil {
			return err
		}
		keys, err = pgx.CollectRows(rows, rowTo(sqlutil.ScanKey))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cockroach: keys of %s: %w", accountID, err)
	}
	sqlutil.SortKeys(keys)
	return keys, nil
}

// APIKeys reads one page of the account's API keys, oldest first.
func (s *Store) APIKeys(ctx context.Context, accountID string, p shlyuz.KeyPage) ([]shlyuz.Key, error) {
	q, args := sqlutil.APIKeys(accountID, p)
	return query(s, ctx, "API keys of "+accountID, sqlutil.ScanKey, q, args...)
}

// WebChatKey is the account's web chat key that is not revoked, or shlyuz.ErrNoRows.
func (s *Store) WebChatKey(ctx context.Context, accountID string) (shlyuz.Key, error) {
	return one(s, ctx, "web chat key of "+accountID, sqlutil.ScanKey, sqlutil.WebChatKey, accountID)
}

// UpdateKey writes k's name, ceiling, period, disabled flag and update time
// over the stored key; an unknown id is shlyuz.ErrNoRows.
func (s *Store) UpdateKey(ctx context.Context, k shlyuz.Key) error {
	return s.touchOne(ctx, "update key "+k.ID, sqlutil.UpdateKey, sqlutil.UpdateKeyArgs(k)...)
}

// RevokeKey marks the key revoked at the instant; revoking it again keeps the
// first instant. An unknown id is shlyuz.ErrNoRows.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`,
			sqlutil.Micros(at), id)
		if err != nil {
			return fmt.Errorf("cockroach: revoke key %s: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("cockroach: revoke key %s: %w", id, shlyuz.ErrNoRows)
		}
		return nil
	})
}

// SetKeyLimit changes the key's ceiling (nil: none), keeping its period. An
// unknown id is shlyuz.ErrNoRows.
func (s *Store) SetKeyLimit(ctx context.Context, id string, limit *shlyuz.Credits) error {
	return s.touchOne(ctx, "set the limit of key "+id, `UPDATE api_keys SET spend_limit = ? WHERE id = ?`, limit, id)
}

// KeySpend is what the key's charges add up to since the instant, inclusive.
func (s *Store) KeySpend(ctx context.Context, keyID string, since time.Time) (shlyuz.Credits, error) {
	var sum int64
	err := s.read(ctx, func(ctx context.Context) error {
		return s.pool.QueryRow(ctx,
			`SELECT CAST(COALESCE(SUM(package_delta + bought_delta), 0) AS BIGINT) FROM ledger_entries
			 WHERE key_id = $1 AND kind = $2 AND created_at >= $3`,
			keyID, string(shlyuz.EntryCharge), sqlutil.Since(since)).Scan(&sum)
	})
	if err != nil {
		return 0, fmt.Errorf("cockroach: spend of key %s: %w", keyID, err)
	}
	return -sum, nil
}
