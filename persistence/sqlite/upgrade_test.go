package sqlite_test

import (
	"context"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence"
	"github.com/shlyuz/shlyuz/persistence/sqlite"
	"github.com/shlyuz/shlyuz/persistence/storetest"
)

// TestUpgradeKeepsRows opens a database that the previous release made (every
// migration but the last, with an account, a charge and a generation in it):
// the last migration applies to it, and the rows stay readable.
func TestUpgradeKeepsRows(t *testing.T) {
	ctx := t.Context()
	migrations, err := persistence.Migrations(persistence.DialectSQLite)
	if err != nil {
		t.Fatal(err)
	}
	path := freshPath(t)
	raw := openRaw(t, path)
	err = persistence.Migrate(ctx, func(ctx context.Context, fn func(persistence.MigrationTx) error) error {
		tx, err := raw.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(sqlite.MigrationTx(tx)); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}, migrations[:len(migrations)-1])
	if err != nil {
		t.Fatalf("migrate to the previous version: %v", err)
	}
	// Rows as the first schema has them, so that they fit any later one.
	for _, stmt := range []string{
		`INSERT INTO accounts (id, email, created_at) VALUES ('acct-old', 'old@example.com', 1)`,
		`INSERT INTO balances (account_id, bought_credits) VALUES ('acct-old', 97)`,
		`INSERT INTO ledger_entries (id, account_id, key_id, kind, package_delta, bought_delta, package_expires_at, epoch, created_at)
			VALUES ('pay-old', 'acct-old', '', 'topup', 0, 100, 0, 0, 4), ('chg-old', 'acct-old', 'key-1', 'charge', 0, -3, 0, 0, 5)`,
		`INSERT INTO generations (id, account_id, key_id, model, upstream, attempts, streamed, prompt_tokens, completion_tokens,
			credits, latency_ms, status, finish_reason, created_at)
			VALUES ('gen-old', 'acct-old', 'key-1', 'm/x', 'up', '[]', FALSE, 12, 9, 3, 40, 'completed', 'stop', 5)`,
	} {
		if _, err := raw.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}

	s := openAt(t, path)
	storetest.WantMigrations(t, persistence.DialectSQLite, func(ctx context.Context, q string, dest ...any) error {
		return raw.QueryRowContext(ctx, q).Scan(dest...)
	})
	if e, err := s.Entry(ctx, "chg-old"); err != nil || e.BoughtDelta != -3 || e.AccountID != "acct-old" {
		t.Errorf("Entry(chg-old) = %+v, %v; want the charge of -3 written before the upgrade", e, err)
	}
	if g, err := s.Generation(ctx, "gen-old"); err != nil || g.Credits != 3 || g.Model != "m/x" {
		t.Errorf("Generation(gen-old) = %+v, %v; want the record written before the upgrade", g, err)
	}
	page, err := s.Generations(ctx, shlyuz.GenerationFilter{AccountID: "acct-old"})
	if err != nil || len(page) != 1 || page[0].ID != "gen-old" {
		t.Errorf("Generations(acct-old) = %+v, %v; want gen-old", page, err)
	}
	if bad, err := s.Reconcile(ctx); err != nil || len(bad) != 0 {
		t.Errorf("Reconcile = %v, %v; want the balance to match its entries", bad, err)
	}
}
