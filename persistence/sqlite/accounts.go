package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// CreateAccount stores a new account and its empty balance (epoch 0).
// A taken email (or id) is shlyuz.ErrDuplicate.
func (s *Store) CreateAccount(ctx context.Context, a shlyuz.Account) error {
	if a.ID == "" || a.Email == "" {
		return errors.New("sqlite: create account: id and email are required")
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)`,
			a.ID, a.Email, sqlutil.Micros(a.CreatedAt))
		if isUniqueViolation(err) {
			return fmt.Errorf("sqlite: create account %s <%s>: %w", a.ID, a.Email, shlyuz.ErrDuplicate)
		}
		if err != nil {
			return fmt.Errorf("sqlite: create account %s: %w", a.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO balances (account_id) VALUES (?)`, a.ID); err != nil {
			return fmt.Errorf("sqlite: create balance of %s: %w", a.ID, err)
		}
		return nil
	})
}

// Account returns the account with the id, or shlyuz.ErrNoRows.
func (s *Store) Account(ctx context.Context, id string) (shlyuz.Account, error) {
	var a shlyuz.Account
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT id, email, created_at FROM accounts WHERE id = ?`, id).
		Scan(&a.ID, &a.Email, &created)
	if err != nil {
		return shlyuz.Account{}, notFound(err, "account "+id)
	}
	a.CreatedAt = sqlutil.Time(created)
	return a, nil
}

// CreateKey stores a key record (its hash, never the plain key) unless the
// account has max keys that are not revoked (shlyuz.ErrLimitReached; max 0:
// no cap). A taken id or hash is shlyuz.ErrDuplicate; an unknown account is
// shlyuz.ErrNoRows.
func (s *Store) CreateKey(ctx context.Context, k shlyuz.Key, max int) error {
	if k.ID == "" || k.Hash == "" {
		return errors.New("sqlite: create key: id and hash are required")
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if max > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, sqlutil.CountKeys, k.AccountID).Scan(&n); err != nil {
				return fmt.Errorf("sqlite: count keys of %s: %w", k.AccountID, err)
			}
			if n >= max {
				return fmt.Errorf("sqlite: create key: %s has %d: %w", k.AccountID, n, shlyuz.ErrLimitReached)
			}
		}
		_, err := tx.ExecContext(ctx, sqlutil.InsertKey, sqlutil.KeyArgs(k)...)
		switch {
		case isUniqueViolation(err):
			return fmt.Errorf("sqlite: create key %s: %w", k.ID, shlyuz.ErrDuplicate)
		case isForeignKeyViolation(err):
			return fmt.Errorf("sqlite: create key %s: account %s: %w", k.ID, k.AccountID, shlyuz.ErrNoRows)
		case err != nil:
			return fmt.Errorf("sqlite: create key %s: %w", k.ID, err)
		}
		return nil
	})
}

// KeyByHash returns the key whose secret hashes to hash, or shlyuz.ErrNoRows.
func (s *Store) KeyByHash(ctx context.Context, hash string) (shlyuz.Key, error) {
	k, err := sqlutil.ScanKey(s.db.QueryRowContext(ctx, `SELECT `+sqlutil.KeyColumns+` FROM api_keys WHERE hash = ?`, hash))
	if err != nil {
		return shlyuz.Key{}, notFound(err, "key by hash")
	}
	return k, nil
}

// Key returns the key with the id, or shlyuz.ErrNoRows.
func (s *Store) Key(ctx context.Context, id string) (shlyuz.Key, error) {
	k, err := sqlutil.ScanKey(s.db.QueryRowContext(ctx, `SELECT `+sqlutil.KeyColumns+` FROM api_keys WHERE id = ?`, id))
	if err != nil {
		return shlyuz.Key{}, notFound(err, "key "+id)
	}
	return k, nil
}

// KeysOf lists the account's keys, oldest first.
func (s *Store) KeysOf(ctx context.Context, accountID string) ([]shlyuz.Key, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sqlutil.KeyColumns+` FROM api_keys WHERE account_id = ?`, accountID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keys of %s: %w", accountID, err)
	}
	keys, err := collect(rows, sqlutil.ScanKey)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keys of %s: %w", accountID, err)
	}
	sqlutil.SortKeys(keys)
	return keys, nil
}

// APIKeys reads one page of the account's API keys, oldest first.
func (s *Store) APIKeys(ctx context.Context, accountID string, p shlyuz.KeyPage) ([]shlyuz.Key, error) {
	q, args := sqlutil.APIKeys(accountID, p)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: API keys of %s: %w", accountID, err)
	}
	keys, err := collect(rows, sqlutil.ScanKey)
	if err != nil {
		return nil, fmt.Errorf("sqlite: API keys of %s: %w", accountID, err)
	}
	return keys, nil
}

// WebChatKey is the account's web chat key that is not revoked, or shlyuz.ErrNoRows.
func (s *Store) WebChatKey(ctx context.Context, accountID string) (shlyuz.Key, error) {
	k, err := sqlutil.ScanKey(s.db.QueryRowContext(ctx, sqlutil.WebChatKey, accountID))
	if err != nil {
		return shlyuz.Key{}, notFound(err, "web chat key of "+accountID)
	}
	return k, nil
}

// UpdateKey writes k's name, ceiling, period, disabled flag and update time
// over the stored key; an unknown id is shlyuz.ErrNoRows.
func (s *Store) UpdateKey(ctx context.Context, k shlyuz.Key) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, sqlutil.UpdateKey, sqlutil.UpdateKeyArgs(k)...)
		return touchedOne(res, err, "update key "+k.ID)
	})
}

// RevokeKey marks the key revoked at the instant; revoking it again keeps the
// first instant. An unknown id is shlyuz.ErrNoRows.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`,
			sqlutil.Micros(at), id)
		return touchedOne(res, err, "revoke key "+id)
	})
}

// SetKeyLimit changes the key's ceiling (nil: none), keeping its period. An
// unknown id is shlyuz.ErrNoRows.
func (s *Store) SetKeyLimit(ctx context.Context, id string, limit *shlyuz.Credits) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET spend_limit = ? WHERE id = ?`, limit, id)
		return touchedOne(res, err, "set the limit of key "+id)
	})
}

// KeySpend is what the key's charges add up to since the instant, inclusive.
func (s *Store) KeySpend(ctx context.Context, keyID string, since time.Time) (shlyuz.Credits, error) {
	var sum int64
	err := s.db.QueryRowContext(ctx,
		`SELECT CAST(COALESCE(SUM(package_delta + bought_delta), 0) AS BIGINT) FROM ledger_entries
		 WHERE key_id = ? AND kind = ? AND created_at >= ?`,
		keyID, string(shlyuz.EntryCharge), sqlutil.Since(since)).Scan(&sum)
	if err != nil {
		return 0, fmt.Errorf("sqlite: spend of key %s: %w", keyID, err)
	}
	return -sum, nil
}
