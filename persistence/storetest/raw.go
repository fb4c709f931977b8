package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence"
)

// RunTampering changes balances and entries behind the store's back and
// expects Reconcile to name exactly the accounts touched. exec runs one
// statement on the store's database directly, not through s.
func RunTampering(t *testing.T, s shlyuz.Store, exec func(ctx context.Context, stmt string) error) {
	ctx := t.Context()
	for _, id := range []string{"acct-1", "acct-2", "acct-3"} {
		mustAccount(t, s, id)
		mustCommit(t, s, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{{ID: "top-" + id, AccountID: id, Kind: shlyuz.EntryTopUp, BoughtDelta: 100}}})
	}
	for _, stmt := range []string{
		`UPDATE balances SET bought_credits = bought_credits + 1 WHERE account_id = 'acct-3'`,
		`INSERT INTO ledger_entries (id, account_id, key_id, kind, package_delta, bought_delta, package_expires_at, epoch, created_at)
		 VALUES ('sneaky', 'acct-1', '', 'adjustment', 5, 0, 0, 0, 0)`,
	} {
		if err := exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Reconcile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"acct-1", "acct-3"}) {
		t.Errorf("Reconcile = %v; want [acct-1 acct-3]", got)
	}
}

// WantMigrations checks that the database records each of the dialect's
// migrations once. query runs a single-row query on it directly.
func WantMigrations(t *testing.T, dialect string, query func(ctx context.Context, q string, dest ...any) error) {
	t.Helper()
	migrations, err := persistence.Migrations(dialect)
	if err != nil {
		t.Fatal(err)
	}
	var n, version int64
	if err := query(t.Context(), `SELECT COUNT(*), MAX(version) FROM schema_migrations`, &n, &version); err != nil {
		t.Fatal(err)
	}
	if last := migrations[len(migrations)-1].Version; n != int64(len(migrations)) || version != last {
		t.Errorf("schema_migrations holds %d rows up to version %d; want %d, up to %d", n, version, len(migrations), last)
	}
}
