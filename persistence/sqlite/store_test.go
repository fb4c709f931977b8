package sqlite_test

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence"
	"github.com/shlyuz/shlyuz/persistence/sqlite"
	"github.com/shlyuz/shlyuz/persistence/storetest"
)

// openAt opens the database file at path and closes it when the test ends.
func openAt(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func freshPath(t *testing.T) string { return filepath.Join(t.TempDir(), "shlyuz.db") }

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) shlyuz.Store { return openAt(t, freshPath(t)) })
}

func TestReopen(t *testing.T) {
	storetest.RunReopen(t, func(t *testing.T) (shlyuz.Store, func(t *testing.T) shlyuz.Store) {
		path := freshPath(t)
		return openAt(t, path), func(t *testing.T) shlyuz.Store { return openAt(t, path) }
	})
}

// TestPlainKeyNotStored writes a key record and looks through the raw bytes of
// the database: the hash is there, the plain key and its secret part are not.
func TestPlainKeyNotStored(t *testing.T) {
	path := freshPath(t)
	s := openAt(t, path)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, shlyuz.Account{ID: "acct-1", Email: "a@example.com", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	plain, hash := shlyuz.NewKeySecret()
	k := shlyuz.Key{ID: "key-1", AccountID: "acct-1", Name: "ci", Hash: hash, Label: shlyuz.MaskKey(plain), CreatedAt: time.Now()}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	var all []byte
	for _, suffix := range []string{"", "-wal", "-journal"} {
		b, err := os.ReadFile(path + suffix)
		if err == nil {
			all = append(all, b...)
		} else if !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if !bytes.Contains(all, []byte(hash)) {
		t.Fatal("the key's hash is not in the database file: the test looks at the wrong bytes")
	}
	secret := strings.TrimPrefix(plain, shlyuz.KeyPrefix)
	if bytes.Contains(all, []byte(plain)) || bytes.Contains(all, []byte(secret)) {
		t.Error("the plain key is in the database file")
	}
}

// TestReconcileFindsTampering changes balances and entries behind the store's
// back and expects Reconcile to name exactly the accounts touched.
func TestReconcileFindsTampering(t *testing.T) {
	path := freshPath(t)
	s := openAt(t, path)
	ctx := t.Context()
	for _, id := range []string{"acct-1", "acct-2", "acct-3"} {
		if err := s.CreateAccount(ctx, shlyuz.Account{ID: id, Email: id + "@example.com"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(ctx, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{{ID: "top-" + id, AccountID: id, Kind: shlyuz.EntryTopUp, BoughtDelta: 100}}}); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, stmt := range []string{
		`UPDATE balances SET bought_credits = bought_credits + 1 WHERE account_id = 'acct-3'`,
		`INSERT INTO ledger_entries (id, account_id, key_id, kind, package_delta, bought_delta, package_expires_at, epoch, created_at)
		 VALUES ('sneaky', 'acct-1', '', 'adjustment', 5, 0, 0, 0, 0)`,
	} {
		if _, err := raw.ExecContext(ctx, stmt); err != nil {
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

// TestMigrations checks that opening records the applied versions once, and
// that several processes' worth of stores may open one new file at once.
func TestMigrations(t *testing.T) {
	path := freshPath(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			s, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Errorf("concurrent Open: %v", err)
				return
			}
			_ = s.Close()
		})
	}
	wg.Wait()
	openAt(t, path)
	migrations, err := persistence.Migrations(persistence.DialectSQLite)
	if err != nil {
		t.Fatal(err)
	}
	last := migrations[len(migrations)-1].Version

	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n, version int64
	if err := raw.QueryRowContext(t.Context(), `SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &version); err != nil {
		t.Fatal(err)
	}
	if n != int64(len(migrations)) || version != last {
		t.Errorf("schema_migrations holds %d rows up to version %d; want %d, up to %d", n, version, len(migrations), last)
	}
}

func TestOpenRefusesEmptyPath(t *testing.T) {
	if s, err := sqlite.Open(t.Context(), ""); err == nil {
		_ = s.Close()
		t.Error("Open(\"\") succeeded")
	}
}
