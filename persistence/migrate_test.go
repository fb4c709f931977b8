package persistence

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestMigrations(t *testing.T) {
	for _, dialect := range []string{DialectSQLite, DialectPostgres} {
		ms, err := Migrations(dialect)
		if err != nil {
			t.Fatalf("Migrations(%s): %v", dialect, err)
		}
		if len(ms) == 0 || ms[0].Version != 1 || ms[0].Name != "init" {
			t.Fatalf("Migrations(%s) = %+v; want 0001_init first", dialect, ms)
		}
		for i, m := range ms {
			if i > 0 && m.Version <= ms[i-1].Version {
				t.Errorf("%s: versions out of order: %d after %d", dialect, m.Version, ms[i-1].Version)
			}
			for _, stmt := range m.Statements() {
				if strings.Contains(stmt, "--") || strings.Contains(stmt, ";") {
					t.Errorf("%s %04d: statement keeps a comment or semicolon: %q", dialect, m.Version, stmt)
				}
			}
		}
	}
	if _, err := Migrations("oracle"); err == nil {
		t.Error("Migrations(oracle) succeeded")
	}
}

func TestStatements(t *testing.T) {
	m := Migration{SQL: "-- a comment; with a semicolon\nCREATE TABLE a (x BIGINT);\n\n  -- indented comment\nCREATE INDEX i ON a (x)\n;\n;  \n"}
	got := m.Statements()
	want := []string{"CREATE TABLE a (x BIGINT)", "CREATE INDEX i ON a (x)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Statements = %q; want %q", got, want)
	}
}

// fakeDB records statements and remembers applied versions the way the
// INSERT into schema_migrations would.
type fakeDB struct {
	applied  map[string]bool
	executed []string
	failOnce string // a statement that fails the first time it runs
}

func (f *fakeDB) Exec(_ context.Context, stmt string) error {
	if f.failOnce != "" && strings.HasPrefix(stmt, f.failOnce) {
		f.failOnce = ""
		return errors.New("collided with another node")
	}
	f.executed = append(f.executed, stmt)
	if strings.HasPrefix(stmt, "INSERT INTO schema_migrations") {
		f.applied[strings.TrimSuffix(strings.Fields(stmt)[7][1:], ",")] = true // the version after "VALUES ("
	}
	return nil
}

func (f *fakeDB) QueryInt(_ context.Context, query string) (int64, error) {
	fields := strings.Fields(query)
	if f.applied[fields[len(fields)-1]] {
		return 1, nil
	}
	return 0, nil
}

func (f *fakeDB) inTx(ctx context.Context, fn func(MigrationTx) error) error { return fn(f) }

func TestMigrate(t *testing.T) {
	ms := []Migration{
		{Version: 1, Name: "one", SQL: "CREATE TABLE one (x BIGINT);"},
		{Version: 2, Name: "two", SQL: "CREATE TABLE two (x BIGINT); CREATE TABLE three (x BIGINT);"},
	}
	db := &fakeDB{applied: map[string]bool{}, failOnce: "CREATE TABLE three"}
	if err := Migrate(t.Context(), db.inTx, ms); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	if !db.applied["1"] || !db.applied["2"] {
		t.Errorf("applied = %v; want versions 1 and 2 recorded", db.applied)
	}
	count := func(prefix string) (n int) {
		for _, s := range db.executed {
			if strings.HasPrefix(s, prefix) {
				n++
			}
		}
		return n
	}
	// Version 1 ran once; version 2 failed half way, and ran whole on the second attempt.
	if count("CREATE TABLE one") != 1 || count("CREATE TABLE three") != 1 {
		t.Errorf("executed %q", db.executed)
	}

	// A second run finds everything recorded and applies nothing.
	db.executed = nil
	if err := Migrate(t.Context(), db.inTx, ms); err != nil {
		t.Fatalf("Migrate again: %v", err)
	}
	if len(db.executed) != 1 || !strings.Contains(db.executed[0], "CREATE TABLE IF NOT EXISTS schema_migrations") {
		t.Errorf("second run executed %q; want only the schema_migrations check", db.executed)
	}
}
