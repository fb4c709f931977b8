package cockroach

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
	"github.com/shlyuz/shlyuz/persistence/internal/videosql"
	"github.com/shlyuz/shlyuz/persistence/internal/websql"
)

var rebind = videosql.Rebind

// SaveLogin creates or replaces an account's web login; an unknown account is shlyuz.ErrNoRows.
func (s *Store) SaveLogin(ctx context.Context, l shlyuz.WebLogin) error {
	err := s.exec(ctx, "save login of "+l.AccountID, websql.UpsertLogin, websql.LoginArgs(l)...)
	if isForeignKeyViolation(err) {
		return fmt.Errorf("cockroach: save login of %s: %w", l.AccountID, shlyuz.ErrNoRows)
	}
	return err
}

// LoginByEmail finds an account and its web login by email.
func (s *Store) LoginByEmail(ctx context.Context, email string) (shlyuz.Account, shlyuz.WebLogin, error) {
	var a shlyuz.Account
	var l shlyuz.WebLogin
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		a, l, err = websql.ScanLoginByEmail(s.pool.QueryRow(ctx, rebind(websql.LoginByEmail), email))
		return err
	})
	if err != nil {
		return shlyuz.Account{}, shlyuz.WebLogin{}, notFound(err, "login by email")
	}
	return a, l, nil
}

// Login is an account's web login.
func (s *Store) Login(ctx context.Context, accountID string) (shlyuz.WebLogin, error) {
	return one(s, ctx, "login of "+accountID, websql.ScanLogin, websql.Login, accountID)
}

// Accounts lists accounts, oldest first.
func (s *Store) Accounts(ctx context.Context, limit, offset int) ([]shlyuz.Account, error) {
	return query(s, ctx, "accounts", websql.ScanAccount, websql.Accounts, limit, offset)
}

// CreateSession stores a session.
func (s *Store) CreateSession(ctx context.Context, ws shlyuz.WebSession) error {
	return s.exec(ctx, "create session", websql.InsertSession, websql.SessionArgs(ws)...)
}

// Session returns the session with the id, or shlyuz.ErrNoRows.
func (s *Store) Session(ctx context.Context, id string) (shlyuz.WebSession, error) {
	return one(s, ctx, "session", websql.ScanSession, websql.Session, id)
}

// DeleteSession removes a session; an absent one is no error.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	return s.exec(ctx, "delete session", websql.DeleteSession, id)
}

// DeleteSessionsOf signs an account out everywhere.
func (s *Store) DeleteSessionsOf(ctx context.Context, accountID string) error {
	return s.exec(ctx, "delete sessions of "+accountID, websql.DeleteSessionsOf, accountID)
}

// CreatePayment stores a new payment; a taken id is shlyuz.ErrDuplicate.
func (s *Store) CreatePayment(ctx context.Context, p shlyuz.Payment) error {
	err := s.exec(ctx, "create payment "+p.ID, websql.InsertPayment, websql.PaymentArgs(p)...)
	if isUniqueViolation(err) {
		return fmt.Errorf("cockroach: create payment %s: %w", p.ID, shlyuz.ErrDuplicate)
	}
	return err
}

// UpdatePayment replaces a payment's external id, status and completion.
func (s *Store) UpdatePayment(ctx context.Context, p shlyuz.Payment) error {
	return s.touchOne(ctx, "update payment "+p.ID, websql.UpdatePayment, websql.UpdatePaymentArgs(p)...)
}

// Payment returns the payment with the id, or shlyuz.ErrNoRows.
func (s *Store) Payment(ctx context.Context, id string) (shlyuz.Payment, error) {
	return one(s, ctx, "payment "+id, websql.ScanPayment, websql.Payment, id)
}

// PaymentByExternalID returns the payment the acquirer knows by the id, or shlyuz.ErrNoRows.
func (s *Store) PaymentByExternalID(ctx context.Context, externalID string) (shlyuz.Payment, error) {
	return one(s, ctx, "payment "+externalID, websql.ScanPayment, websql.PaymentByExt, externalID)
}

// PaymentsOf lists an account's payments, newest first.
func (s *Store) PaymentsOf(ctx context.Context, accountID string, limit int) ([]shlyuz.Payment, error) {
	return query(s, ctx, "payments of "+accountID, websql.ScanPayment, websql.PaymentsOf, accountID, limit)
}

// Generations lists an account's generations, newest first.
func (s *Store) Generations(ctx context.Context, f shlyuz.GenerationFilter) ([]shlyuz.Generation, error) {
	q, args := websql.Generations(f)
	return query(s, ctx, "generations of "+f.AccountID, sqlutil.ScanGeneration, q, args...)
}

func (s *Store) exec(ctx context.Context, what, q string, args ...any) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, rebind(q), args...); err != nil {
			return fmt.Errorf("cockroach: %s: %w", what, err)
		}
		return nil
	})
}

func one[T any](s *Store, ctx context.Context, what string, scan func(sqlutil.Scanner) (T, error), q string, args ...any) (T, error) {
	var out T
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		out, err = scan(s.pool.QueryRow(ctx, rebind(q), args...))
		return err
	})
	if err != nil {
		var zero T
		return zero, notFound(err, what)
	}
	return out, nil
}

func query[T any](s *Store, ctx context.Context, what string, scan func(sqlutil.Scanner) (T, error), q string, args ...any) ([]T, error) {
	var out []T
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, rebind(q), args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, rowTo(scan))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cockroach: %s: %w", what, err)
	}
	return out, nil
}

// RecordRateChange stores one change of the exchange rate.
func (s *Store) RecordRateChange(ctx context.Context, c shlyuz.RateChange) error {
	return s.exec(ctx, "record rate change", websql.InsertRateChange, websql.RateChangeArgs(c)...)
}

// RateChanges lists the exchange rate's changes, newest first.
func (s *Store) RateChanges(ctx context.Context, limit int) ([]shlyuz.RateChange, error) {
	return query(s, ctx, "rate changes", websql.ScanRateChange, websql.RateChanges, limit)
}
