package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
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
func openAt(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func freshPath(t testing.TB) string { return filepath.Join(t.TempDir(), "shlyuz.db") }

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
	if err := s.CreateKey(ctx, k, 0); err != nil {
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
	raw := openRaw(t, path)
	storetest.RunTampering(t, s, func(ctx context.Context, stmt string) error {
		_, err := raw.ExecContext(ctx, stmt)
		return err
	})
}

// openRaw opens the database file at path with database/sql, bypassing the
// store, and closes it when the test ends.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = raw.Close() })
	return raw
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
	raw := openRaw(t, path)
	storetest.WantMigrations(t, persistence.DialectSQLite, func(ctx context.Context, q string, dest ...any) error {
		return raw.QueryRowContext(ctx, q).Scan(dest...)
	})
}

func TestOpenRefusesEmptyPath(t *testing.T) {
	if s, err := sqlite.Open(t.Context(), ""); err == nil {
		_ = s.Close()
		t.Error("Open(\"\") succeeded")
	}
}
