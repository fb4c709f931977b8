// Package websql is the SQL of the web account area's tables (web_logins,
// web_sessions, payments, web_conversations) and of the activity listing, shared by both stores:
// queries with "?" placeholders (videosql.Rebind turns them into $n) and the
// row codecs.
package websql

import (
	"time"

	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// The queries.
const (
	UpsertLogin = `INSERT INTO web_logins (account_id, password_hash, confirmed_at) VALUES (?, ?, ?)
		ON CONFLICT (account_id) DO UPDATE SET password_hash = excluded.password_hash, confirmed_at = excluded.confirmed_at`
	LoginByEmail = `SELECT a.id, a.email, a.created_at, l.password_hash, l.confirmed_at
		FROM accounts a JOIN web_logins l ON l.account_id = a.id WHERE a.email = ?`
	Login    = `SELECT account_id, password_hash, confirmed_at FROM web_logins WHERE account_id = ?`
	Accounts = `SELECT id, email, created_at FROM accounts ORDER BY created_at, id LIMIT ? OFFSET ?`

	InsertSession    = `INSERT INTO web_sessions (id, account_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`
	Session          = `SELECT id, account_id, csrf, created_at, expires_at FROM web_sessions WHERE id = ?`
	DeleteSession    = `DELETE FROM web_sessions WHERE id = ?`
	DeleteSessionsOf = `DELETE FROM web_sessions WHERE account_id = ?`

	paymentColumns = `id, external_id, account_id, kind, plan_id, amount, credits, status, created_at, completed_at, receipt_status`
	InsertPayment  = `INSERT INTO payments (` + paymentColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	UpdatePayment  = `UPDATE payments SET external_id = ?, status = ?, completed_at = ?, receipt_status = ? WHERE id = ?`
	Payment        = `SELECT ` + paymentColumns + ` FROM payments WHERE id = ?`
	PaymentByExt   = `SELECT ` + paymentColumns + ` FROM payments WHERE external_id = ? AND external_id <> ''`
	PaymentsOf     = `SELECT ` + paymentColumns + ` FROM payments WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`
)

// ScanLoginByEmail reads a LoginByEmail row.
func ScanLoginByEmail(row sqlutil.Scanner) (shlyuz.Account, shlyuz.WebLogin, error) {
	var a shlyuz.Account
	var l shlyuz.WebLogin
	var created, confirmed int64
	if err := row.Scan(&a.ID, &a.Email, &created, &l.PasswordHash, &confirmed); err != nil {
		return a, l, err
	}
	a.CreatedAt = sqlutil.Time(created)
	l.AccountID = a.ID
	l.ConfirmedAt = confirmedAt(confirmed)
	return a, l, nil
}

// ScanLogin reads a Login row.
func ScanLogin(row sqlutil.Scanner) (shlyuz.WebLogin, error) {
	var l shlyuz.WebLogin
	var confirmed int64
	if err := row.Scan(&l.AccountID, &l.PasswordHash, &confirmed); err != nil {
		return l, err
	}
	l.ConfirmedAt = confirmedAt(confirmed)
	return l, nil
}

func confirmedAt(us int64) *time.Time {
	if us == 0 {
		return nil
	}
	t := sqlutil.Time(us)
	return &t
}

// LoginArgs are UpsertLogin's arguments.
func LoginArgs(l shlyuz.WebLogin) []any {
	var confirmed int64
	if l.ConfirmedAt != nil {
		confirmed = sqlutil.Micros(*l.ConfirmedAt)
	}
	return []any{l.AccountID, l.PasswordHash, confirmed}
}

// ScanAccount reads an Accounts row.
func ScanAccount(row sqlutil.Scanner) (shlyuz.Account, error) {
	var a shlyuz.Account
	var created int64
	err := row.Scan(&a.ID, &a.Email, &created)
	a.CreatedAt = sqlutil.Time(created)
	return a, err
}

// SessionArgs are InsertSession's arguments.
func SessionArgs(s shlyuz.WebSession) []any {
	return []any{s.ID, s.AccountID, s.CSRF, sqlutil.Micros(s.CreatedAt), sqlutil.Micros(s.ExpiresAt)}
}

// ScanSession reads a Session row.
func ScanSession(row sqlutil.Scanner) (shlyuz.WebSession, error) {
	var s shlyuz.WebSession
	var created, expires int64
	if err := row.Scan(&s.ID, &s.AccountID, &s.CSRF, &created, &expires); err != nil {
		return s, err
	}
	s.CreatedAt, s.ExpiresAt = sqlutil.Time(created), sqlutil.Time(expires)
	return s, nil
}

// PaymentArgs are InsertPayment's arguments.
func PaymentArgs(p shlyuz.Payment) []any {
	return []any{p.ID, p.ExternalID, p.AccountID, string(p.Kind), p.PlanID, p.AmountRub.String(), p.Credits, p.Status,
		sqlutil.Micros(p.CreatedAt), completed(p), p.Receipt}
}

// UpdatePaymentArgs are UpdatePayment's arguments.
func UpdatePaymentArgs(p shlyuz.Payment) []any {
	return []any{p.ExternalID, p.Status, completed(p), p.Receipt, p.ID}
}

func completed(p shlyuz.Payment) int64 {
	if p.CompletedAt == nil {
		return 0
	}
	return sqlutil.Micros(*p.CompletedAt)
}

// ScanPayment reads a payment row.
func ScanPayment(row sqlutil.Scanner) (shlyuz.Payment, error) {
	var p shlyuz.Payment
	var kind, amount string
	var created, done int64
	if err := row.Scan(&p.ID, &p.ExternalID, &p.AccountID, &kind, &p.PlanID, &amount, &p.Credits, &p.Status, &created, &done, &p.Receipt); err != nil {
		return p, err
	}
	var err error
	if p.AmountRub, err = sqlutil.Decimal("payments.amount", amount); err != nil {
		return p, err
	}
	p.Kind = shlyuz.PaymentKind(kind)
	p.CreatedAt = sqlutil.Time(created)
	p.CompletedAt = confirmedAt(done)
	return p, nil
}

// Generations is the activity query of f and its arguments.
func Generations(f shlyuz.GenerationFilter) (string, []any) {
	var b strings.Builder
	b.WriteString(`SELECT ` + sqlutil.GenerationColumns + ` FROM generations WHERE account_id = ?`)
	args := []any{f.AccountID}
	if f.KeyID != "" {
		b.WriteString(` AND key_id = ?`)
		args = append(args, f.KeyID)
	}
	if f.Model != "" {
		b.WriteString(` AND model = ?`)
		args = append(args, f.Model)
	}
	if f.User != "" {
		b.WriteString(` AND end_user = ?`)
		args = append(args, f.User)
	}
	if !f.Since.IsZero() {
		b.WriteString(` AND created_at >= ?`)
		args = append(args, sqlutil.Micros(f.Since))
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	b.WriteString(` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
	args = append(args, limit, max(f.Offset, 0))
	return b.String(), args
}

// The exchange rate's history.
const (
	InsertRateChange = `INSERT INTO rate_changes (id, at, changed_by, old_rate, new_rate) VALUES (?, ?, ?, ?, ?)`
	RateChanges      = `SELECT id, at, changed_by, old_rate, new_rate FROM rate_changes ORDER BY at DESC, id DESC LIMIT ?`
)

// RateChangeArgs are InsertRateChange's arguments.
func RateChangeArgs(c shlyuz.RateChange) []any {
	return []any{c.ID, sqlutil.Micros(c.At), c.By, c.Old.String(), c.New.String()}
}

// ScanRateChange reads a RateChanges row.
func ScanRateChange(row sqlutil.Scanner) (shlyuz.RateChange, error) {
	var c shlyuz.RateChange
	var at int64
	var old, nw string
	if err := row.Scan(&c.ID, &at, &c.By, &old, &nw); err != nil {
		return c, err
	}
	c.At = sqlutil.Time(at)
	var err error
	if c.Old, err = sqlutil.Decimal("rate_changes.old_rate", old); err != nil {
		return c, err
	}
	c.New, err = sqlutil.Decimal("rate_changes.new_rate", nw)
	return c, err
}
