package cockroach

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/pgtest"
	"github.com/shlyuz/shlyuz/persistence"
	"github.com/shlyuz/shlyuz/persistence/storetest"
)

// The tests run against the database named by SHLYUZ_TEST_POSTGRES (PostgreSQL
// or CockroachDB), each in a schema of its own that is dropped afterwards.

var skipNotice sync.Once

func baseDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("SHLYUZ_TEST_POSTGRES")
	if dsn == "" {
		skipNotice.Do(func() {
			fmt.Fprintln(os.Stderr, "=== SKIP: SHLYUZ_TEST_POSTGRES is not set; the CockroachDB store was NOT tested")
		})
		t.Skip("SHLYUZ_TEST_POSTGRES is not set")
	}
	return dsn
}

// freshSchema creates a schema no other test uses, drops it when the test
// ends, and returns a DSN whose search_path selects it.
func freshSchema(t testing.TB) string {
	t.Helper()
	return pgtest.FreshSchema(t, baseDSN(t), "shlyuz_test")
}

// openAt opens the store on dsn and closes it when the test ends.
func openAt(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func openFresh(t *testing.T) *Store { return openAt(t, freshSchema(t)) }

func TestStore(t *testing.T) {
	baseDSN(t)
	storetest.Run(t, func(t *testing.T) shlyuz.Store { return openFresh(t) })
}

func TestReopen(t *testing.T) {
	storetest.RunReopen(t, func(t *testing.T) (shlyuz.Store, func(t *testing.T) shlyuz.Store) {
		dsn := freshSchema(t)
		return openAt(t, dsn), func(t *testing.T) shlyuz.Store { return openAt(t, dsn) }
	})
}

func mustAccount(t testing.TB, s *Store, id string) {
	t.Helper()
	if err := s.CreateAccount(t.Context(), shlyuz.Account{ID: id, Email: id + "@example.com", CreatedAt: time.Now()}); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
}

// TestWholeTransactionRetry provokes a serialization failure: the transaction
// reads a balance, another transaction changes it and commits, and the first
// one's update then fails with 40001. The whole transaction must run again,
// from a fresh BEGIN, and succeed.
func TestWholeTransactionRetry(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	tries := 0
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tries++
		var bought int64
		if err := tx.QueryRow(ctx, `SELECT bought_credits FROM balances WHERE account_id = 'acct-1'`).Scan(&bought); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if tries == 1 {
			if _, err := s.ClaimBalance(ctx, "acct-1"); err != nil {
				return fmt.Errorf("the other transaction: %v", err)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE balances SET bought_credits = $1 WHERE account_id = 'acct-1'`, bought+5); err != nil {
			return fmt.Errorf("update: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("inTx: %v", err)
	}
	if tries != 2 || s.retries.Load() != 1 {
		t.Errorf("ran %d times with %d retries; want 2 and 1", tries, s.retries.Load())
	}
	b, err := s.Balance(ctx, "acct-1")
	if err != nil || b.BoughtCredits != 5 || b.Epoch != 1 {
		t.Errorf("Balance = %+v, %v; want bought 5 at epoch 1", b, err)
	}
}

// TestRetriesEnd checks that a transaction failing with 40001 every time is
// tried 1+maxRetries times and then fails with that error.
func TestRetriesEnd(t *testing.T) {
	s := openFresh(t)
	tries := 0
	err := s.inTx(t.Context(), func(tx pgx.Tx) error {
		tries++
		return fmt.Errorf("wrapped: %w", serializationFailure{})
	})
	if err == nil || !strings.Contains(err.Error(), "40001") {
		t.Errorf("inTx = %v; want the serialization failure", err)
	}
	if tries != 1+maxRetries {
		t.Errorf("tried %d times; want %d", tries, 1+maxRetries)
	}
}

type serializationFailure struct{}

func (serializationFailure) Error() string    { return "synthetic serialization failure (SQLSTATE 40001)" }
func (serializationFailure) SQLState() string { return "40001" }

// TestTwoNodes runs two stores on one database, as two gateway nodes would:
// their writers collide on one balance row and must retry, not fail or lose
// entries; and the newer claim fences the older activation.
func TestTwoNodes(t *testing.T) {
	dsn := freshSchema(t)
	a, b := openAt(t, dsn), openAt(t, dsn)
	ctx := t.Context()
	mustAccount(t, a, "acct-1")

	const perNode = 20
	var wg sync.WaitGroup
	for n, s := range []*Store{a, b} {
		for i := range perNode {
			wg.Go(func() {
				e := shlyuz.LedgerEntry{ID: fmt.Sprintf("n%d-%02d", n, i), AccountID: "acct-1", Kind: shlyuz.EntryTopUp,
					BoughtDelta: int64(n*100 + i + 1), CreatedAt: time.Now()}
				res, err := s.Commit(ctx, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{e}})
				if err != nil || len(res.Applied) != 1 {
					t.Errorf("node %d Commit(%s) = %+v, %v", n, e.ID, res, err)
				}
			})
		}
	}
	wg.Wait()
	var want int64
	for n := range 2 {
		for i := range perNode {
			want += int64(n*100 + i + 1)
		}
	}
	bal, err := b.Balance(ctx, "acct-1")
	if err != nil || bal.BoughtCredits != want {
		t.Errorf("Balance = %+v, %v; want bought %d", bal, err, want)
	}
	if ids, err := a.Reconcile(ctx); err != nil || len(ids) != 0 {
		t.Errorf("Reconcile = %v, %v; want none", ids, err)
	}
	t.Logf("retries: node a %d, node b %d", a.retries.Load(), b.retries.Load())

	first, err := a.ClaimBalance(ctx, "acct-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.ClaimBalance(ctx, "acct-1"); err != nil {
		t.Fatal(err)
	}
	stale := shlyuz.LedgerEntry{ID: "stale", AccountID: "acct-1", Kind: shlyuz.EntryCharge, BoughtDelta: -1, Epoch: first.Epoch, CreatedAt: time.Now()}
	res, err := a.Commit(ctx, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{stale}})
	if err != nil || !slices.Equal(res.Fenced, []string{"stale"}) {
		t.Errorf("Commit from the older activation = %+v, %v; want fenced", res, err)
	}
}

// TestReconcileFindsTampering changes balances and entries behind the store's
// back and expects Reconcile to name exactly the accounts touched.
func TestReconcileFindsTampering(t *testing.T) {
	dsn := freshSchema(t)
	s := openAt(t, dsn)
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	storetest.RunTampering(t, s, func(ctx context.Context, stmt string) error {
		_, err := conn.Exec(ctx, stmt)
		return err
	})
}

// TestMigrations opens one new schema from several stores at once (nodes
// starting together) and checks each version is recorded once.
func TestMigrations(t *testing.T) {
	dsn := freshSchema(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			s, err := Open(t.Context(), dsn)
			if err != nil {
				t.Errorf("concurrent Open: %v", err)
				return
			}
			_ = s.Close()
		})
	}
	wg.Wait()
	s := openAt(t, dsn)
	storetest.WantMigrations(t, persistence.DialectPostgres, func(ctx context.Context, q string, dest ...any) error {
		return s.pool.QueryRow(ctx, q).Scan(dest...)
	})
}
