// Package pgtest gives a test a PostgreSQL schema of its own on a shared
// server (the one SHLYUZ_TEST_POSTGRES names), so that tests running at
// once on one database never see each other's tables, and nothing is left
// behind when they end. It is imported by tests only.
package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// FreshSchema creates a schema no other test uses on the server of base,
// named prefix and a unique suffix, drops it when the test ends, and returns
// base with a search_path that selects it.
func FreshSchema(t testing.TB, base, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%d_%08x", prefix, time.Now().UnixNano(), rand.Uint32())
	admin := func(stmt string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, stmt)
		return err
	}
	if err := admin("CREATE SCHEMA " + name); err != nil {
		t.Fatalf("create schema %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := admin("DROP SCHEMA " + name + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return withSearchPath(t, base, name)
}

// withSearchPath is dsn, a URL or the key=value form, selecting schema.
func withSearchPath(t testing.TB, dsn, schema string) string {
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn + " search_path=" + schema // key=value form
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("SHLYUZ_TEST_POSTGRES: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
