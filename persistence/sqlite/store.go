// Package sqlite is the embedded Store: the whole state of a single gateway in
// one SQLite file, through modernc.org/sqlite (pure Go, no cgo).
//
// The database runs in WAL mode, so reads proceed while one transaction
// writes. Every transaction begins IMMEDIATE (it takes the write lock at once,
// which is what keeps concurrent writers from failing with SQLITE_BUSY), and
// the writers of one process queue in Go before they begin. A writer from
// another process (an admin command) waits up to busy_timeout.
//
// The schema and its migrations are those of package persistence; Open applies
// the missing ones.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// Store is a shlyuz.Store in one SQLite file. It is safe for concurrent use.
type Store struct {
	db        *sql.DB
	writer    chan struct{} // a token: the one writer of this process holds it
	stmt      prepared
	path      string
	soleMu    sync.Mutex
	sole      *os.File // holds the single-node lock (LockSole) until Close
	written   atomic.Bool
	walLimit  int64 // the WAL's size past which the checkpointer truncates it
	cpStop    chan struct{}
	cpDone    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

var (
	_ shlyuz.Store      = (*Store)(nil)
	_ shlyuz.SoleServer = (*Store)(nil)
)

// pragmas are applied to every connection the pool opens.
// WAL with synchronous=NORMAL: a committed transaction is in the WAL file,
// which a crash of the process (kill -9) cannot lose; only a crash of the
// machine could lose the last commits. Checkpoints run beside the writers
// (checkpoint.go), never inside a commit; journal_size_limit is walLimit.
// temp_store=MEMORY keeps the statement journal of a commit's multi-row
// statements (the pages they change, kept in case one fails midway) in
// memory: past 64 KiB SQLite spills it to a temporary file otherwise, two
// write(2)s a page, a third of a tick commit's SQLite work.
const pragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit(67108864)&_pragma=temp_store(MEMORY)&_txlock=immediate"

// maxConns bounds the pool: many readers, one writer at a time.
const maxConns = 8

// uriPath escapes the characters a file: URI gives a meaning to.
var uriPath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// Open opens (creating when absent) the database file at path and brings its
// schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	db, err := sql.Open("sqlite", "file:"+uriPath.Replace(path)+"?"+pragmas)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	s := &Store{db: db, writer: make(chan struct{}, 1), path: path, walLimit: walLimit}
	if err := ping(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	if err := s.prepare(ctx); err != nil {
		s.closeStatements()
		_ = db.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	s.cpStop, s.cpDone = make(chan struct{}), make(chan struct{})
	go s.checkpointer()
	return s, nil
}

// pingTries bounds ping's connections.
const pingTries = 8

// ping opens the pool's first connection. Processes opening one new file at
// once race to switch its journal to WAL, and a loser's switch fails with
// SQLITE_BUSY at once, busy_timeout or not: its connection is made again, a
// few times over a second at most, by when the winner is long done.
func ping(ctx context.Context, db *sql.DB) error {
	for try := 1; ; try++ {
		err := db.PingContext(ctx)
		if err == nil || try == pingTries || sqliteCode(err)&0xff != sqlite3.SQLITE_BUSY {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(try) * 20 * time.Millisecond):
		}
	}
}

// Close closes the database. Closing twice is harmless.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.cpStop != nil {
			close(s.cpStop)
			<-s.cpDone
		}
		s.closeStatements()
		s.closeErr = s.db.Close()
		s.soleMu.Lock()
		if s.sole != nil {
			_ = s.sole.Close() // lets go of the lock
		}
		s.soleMu.Unlock()
	})
	return s.closeErr
}

func (s *Store) migrate(ctx context.Context) error {
	migrations, err := persistence.Migrations(persistence.DialectSQLite)
	if err != nil {
		return err
	}
	return persistence.Migrate(ctx, func(ctx context.Context, fn func(persistence.MigrationTx) error) error {
		return s.write(ctx, func(tx *sql.Tx) error { return fn(migrationTx{tx}) })
	}, migrations)
}

type migrationTx struct{ tx *sql.Tx }

func (m migrationTx) Exec(ctx context.Context, stmt string) error {
	_, err := m.tx.ExecContext(ctx, stmt)
	return err
}

func (m migrationTx) QueryInt(ctx context.Context, query string) (int64, error) {
	var n int64
	err := m.tx.QueryRowContext(ctx, query).Scan(&n)
	return n, err
}

// write runs fn in one immediate transaction and commits it when fn returns
// nil. Writers of this process take turns on s.writer first, so they queue in
// Go instead of polling SQLite's busy handler.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writer }()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	s.written.Store(true)
	return nil
}

// collect reads every row with scan and closes the rows.
func collect[T any](rows *sql.Rows, scan func(sqlutil.Scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// scanString reads a row of one text column.
func scanString(row sqlutil.Scanner) (string, error) {
	var s string
	err := row.Scan(&s)
	return s, err
}

// notFound turns sql.ErrNoRows into shlyuz.ErrNoRows, naming what was missing.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlite: %s: %w", what, shlyuz.ErrNoRows)
	}
	return fmt.Errorf("sqlite: %s: %w", what, err)
}

// touchedOne is the error of a write that must touch a row: err itself, or
// shlyuz.ErrNoRows when it touched none. what names the write.
func touchedOne(res sql.Result, err error, what string) error {
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: %s: %w", what, err)
	} else if n == 0 {
		return fmt.Errorf("sqlite: %s: %w", what, shlyuz.ErrNoRows)
	}
	return nil
}

// sqliteCode is the extended result code of a SQLite error, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

func isUniqueViolation(err error) bool {
	c := sqliteCode(err)
	return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

func isForeignKeyViolation(err error) bool {
	return sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}
