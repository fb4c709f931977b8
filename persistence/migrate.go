package persistence

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The dialects a migration may be written for.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres" // PostgreSQL and CockroachDB
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migration is one versioned change of the schema.
type Migration struct {
	Version int64
	Name    string // from the file name: "init" in 0001_init.sql
	SQL     string
}

// Statements splits the migration into its statements. Lines starting with
// "--" are comments; statements end with a semicolon and contain none.
func (m Migration) Statements() []string {
	var b strings.Builder
	for _, line := range strings.Split(m.SQL, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	var out []string
	for _, s := range strings.Split(b.String(), ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var migrationName = regexp.MustCompile(`^([0-9]{4})_([a-z0-9_]+?)(\.(sqlite|postgres))?\.sql$`)

// Migrations returns the migrations of a dialect in version order: the shared
// files and the ones written for that dialect only.
func Migrations(dialect string) ([]Migration, error) {
	if dialect != DialectSQLite && dialect != DialectPostgres {
		return nil, fmt.Errorf("persistence: unknown dialect %q", dialect)
	}
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("persistence: list migrations: %w", err)
	}
	byVersion := map[int64]Migration{}
	for _, name := range names {
		m := migrationName.FindStringSubmatch(path.Base(name))
		if m == nil {
			return nil, fmt.Errorf("persistence: migration file %s is not named NNNN_name[.dialect].sql", name)
		}
		if m[4] != "" && m[4] != dialect {
			continue
		}
		version, _ := strconv.ParseInt(m[1], 10, 64)
		if version <= 0 {
			return nil, fmt.Errorf("persistence: migration %s: versions start at 0001", name)
		}
		if prev, dup := byVersion[version]; dup {
			return nil, fmt.Errorf("persistence: migrations %s and %q share version %d", name, prev.Name, version)
		}
		body, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("persistence: read %s: %w", name, err)
		}
		byVersion[version] = Migration{Version: version, Name: m[2], SQL: string(body)}
	}
	out := make([]Migration, 0, len(byVersion))
	for _, m := range byVersion {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// MigrationTx is what Migrate needs of one transaction of a dialect. The
// statements it passes carry no parameters.
type MigrationTx interface {
	Exec(ctx context.Context, stmt string) error
	QueryInt(ctx context.Context, query string) (int64, error)
}

// InTx runs fn in one transaction, committing when fn returns nil. A dialect
// that retries transactions may run fn more than once.
type InTx func(ctx context.Context, fn func(MigrationTx) error) error

const createSchemaMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    BIGINT NOT NULL PRIMARY KEY,
    name       TEXT   NOT NULL,
    applied_at BIGINT NOT NULL
)`

// migrateAttempts bounds how often Migrate starts over: nodes migrating one
// database at once may collide (PostgreSQL's CREATE TABLE IF NOT EXISTS is not
// safe against a concurrent one), and the loser finds the work done when it
// tries again. The pauses are jittered so colliders spread out.
const migrateAttempts = 12

// Migrate brings the schema up to date: it creates schema_migrations when
// absent, then applies each migration it does not record, each in its own
// transaction together with the row that records it.
func Migrate(ctx context.Context, inTx InTx, migrations []Migration) error {
	var err error
	for attempt := 1; attempt <= migrateAttempts; attempt++ {
		if err = migrateOnce(ctx, inTx, migrations); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt)*20*time.Millisecond + rand.N(time.Duration(attempt)*40*time.Millisecond)):
		}
	}
	return err
}

func migrateOnce(ctx context.Context, inTx InTx, migrations []Migration) error {
	err := inTx(ctx, func(tx MigrationTx) error { return tx.Exec(ctx, createSchemaMigrations) })
	if err != nil {
		return fmt.Errorf("persistence: create schema_migrations: %w", err)
	}
	for _, m := range migrations {
		err := inTx(ctx, func(tx MigrationTx) error {
			n, err := tx.QueryInt(ctx, fmt.Sprintf("SELECT COUNT(*) FROM schema_migrations WHERE version = %d", m.Version))
			if err != nil || n > 0 {
				return err
			}
			for _, stmt := range m.Statements() {
				if err := tx.Exec(ctx, stmt); err != nil {
					return err
				}
			}
			// Version and name are digits and [a-z0-9_]: safe to inline.
			return tx.Exec(ctx, fmt.Sprintf(
				"INSERT INTO schema_migrations (version, name, applied_at) VALUES (%d, '%s', %d) ON CONFLICT (version) DO NOTHING",
				m.Version, m.Name, time.Now().UnixMicro()))
		})
		if err != nil {
			return fmt.Errorf("persistence: migration %04d_%s: %w", m.Version, m.Name, err)
		}
	}
	return nil
}
