// Package cockroach is the shared Store of a cluster: CockroachDB (or
// PostgreSQL, which the tests run against) through a pgx connection pool.
//
// Every transaction is SERIALIZABLE and is retried whole on a serialization
// failure (SQLSTATE 40001): crdb.ExecuteCtx around pgx.BeginTxFunc, so each try
// starts with a fresh BEGIN and a failed COMMIT is seen. cockroach-go's own
// ExecuteTx is not used: it retries through a savepoint, which never clears a
// serialization failure on PostgreSQL and ignores the commit's error. Errors
// are wrapped with %w throughout so the SQLSTATE stays visible to the retry loop.
// The journal's usual commit sends its whole transaction, BEGIN to COMMIT, as
// one pipelined batch (onetrip.go), retried whole the same way.
// Single-statement reads run outside an explicit transaction and are retried
// the same way.
//
// The writes that touch a balance row (Commit, ClaimBalance) first take an
// in-process lock per account (striped), so this process never races itself on
// a hot row; other nodes' writers are what the retry loop is for.
//
// The schema and its migrations are those of package persistence; Open applies
// the missing ones. The SQL used is what both CockroachDB and PostgreSQL accept:
// no SERIAL, no PL/pgSQL; the two PostgreSQL-only features (the single-node
// advisory lock, asynchronous commit of charge batches) are used only when
// SELECT version() says PostgreSQL.
package cockroach

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/cockroach-go/v2/crdb"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// maxRetries is how often a transaction is tried again after a serialization failure.
const maxRetries = 10

// stripes is the number of in-process account locks.
const stripes = 64

// Store is a shlyuz.Store on CockroachDB or PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool      *pgxpool.Pool
	stripes   [stripes]chan struct{}
	retries   atomic.Int64 // transactions tried again, for tests and curiosity
	postgres  bool         // PostgreSQL, not CockroachDB: charges may commit asynchronously
	syncAll   bool         // charges commit synchronously too (the benchmark of the choice)
	soleMu    sync.Mutex
	sole      *pgx.Conn // the session holding the single-node lock (LockSole)
	closeOnce sync.Once
}

var (
	_ shlyuz.Store      = (*Store)(nil)
	_ shlyuz.SoleServer = (*Store)(nil)
)

// Open connects to the database named by dsn (a postgres:// URL or key=value
// string; pgxpool parameters such as pool_max_conns are honoured, and a
// search_path parameter selects the schema) and brings its schema up to date.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("cockroach: parse dsn: %w", err)
	}
	return openConfig(ctx, cfg)
}

// openConfig is Open with the pool's configuration parsed (tests set a
// dialer of their own on it).
func openConfig(ctx context.Context, cfg *pgxpool.Config) (*Store, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cockroach: connect: %w", err)
	}
	s := &Store{pool: pool}
	for i := range s.stripes {
		s.stripes[i] = make(chan struct{}, 1)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cockroach: connect: %w", err)
	}
	var version string
	if err := pool.QueryRow(ctx, `SELECT version()`).Scan(&version); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cockroach: version: %w", err)
	}
	s.postgres = !strings.Contains(version, "CockroachDB")
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cockroach: %w", err)
	}
	return s, nil
}

// Close closes the pool. Closing twice is harmless.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closeSole()
		s.pool.Close()
	})
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	migrations, err := persistence.Migrations(persistence.DialectPostgres)
	if err != nil {
		return err
	}
	return persistence.Migrate(ctx, func(ctx context.Context, fn func(persistence.MigrationTx) error) error {
		return s.inTx(ctx, func(tx pgx.Tx) error { return fn(migrationTx{tx}) })
	}, migrations)
}

type migrationTx struct{ tx pgx.Tx }

func (m migrationTx) Exec(ctx context.Context, stmt string) error {
	if _, err := m.tx.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", firstLine(stmt), err)
	}
	return nil
}

func (m migrationTx) QueryInt(ctx context.Context, query string) (int64, error) {
	var n int64
	err := m.tx.QueryRow(ctx, query).Scan(&n)
	return n, err
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

// inTx runs fn in a SERIALIZABLE transaction and retries the whole
// transaction (a new BEGIN each time) on SQLSTATE 40001. fn may run more than
// once: it must not keep state across tries.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return s.retryTx(ctx, func(ctx context.Context) error {
		return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.Serializable}, fn)
	})
}

// retryTx runs a whole transaction, try, and runs it again on SQLSTATE
// 40001, up to maxRetries times, each retry counted and after a backoff.
func (s *Store) retryTx(ctx context.Context, try func(ctx context.Context) error) error {
	attempt := 0
	return crdb.ExecuteCtx(crdb.WithMaxRetries(ctx, maxRetries), func(ctx context.Context, _ ...interface{}) error {
		if attempt > 0 {
			s.retries.Add(1)
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
		}
		attempt++
		return try(ctx)
	})
}

// read runs a single-statement read, and runs it again on SQLSTATE 40001,
// up to maxRetries times.
func (s *Store) read(ctx context.Context, fn func(ctx context.Context) error) error {
	return crdb.ExecuteCtx(crdb.WithMaxRetries(ctx, maxRetries), func(ctx context.Context, _ ...interface{}) error {
		return fn(ctx)
	})
}

// touchOne runs a write that must touch a row; shlyuz.ErrNoRows when it touched none.
func (s *Store) touchOne(ctx context.Context, what, q string, args ...any) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, rebind(q), args...)
		if err != nil {
			return fmt.Errorf("cockroach: %s: %w", what, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("cockroach: %s: %w", what, shlyuz.ErrNoRows)
		}
		return nil
	})
}

// backoff waits a jittered, growing pause before try number attempt+1, so
// that transactions that collided do not collide again at once.
func backoff(ctx context.Context, attempt int) error {
	d := min(2*time.Millisecond<<min(attempt-1, 7), 250*time.Millisecond)
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// lockAccounts takes the in-process locks of the accounts' stripes, in
// ascending order so that two batches never wait on each other, and returns
// the function that releases them.
func (s *Store) lockAccounts(ctx context.Context, accountIDs []string) (func(), error) {
	seen := map[int]bool{}
	var idx []int
	for _, id := range accountIDs {
		h := fnv.New32a()
		h.Write([]byte(id))
		if i := int(h.Sum32() % stripes); !seen[i] {
			seen[i] = true
			idx = append(idx, i)
		}
	}
	sort.Ints(idx)
	unlock := func(n int) {
		for j := n - 1; j >= 0; j-- {
			<-s.stripes[idx[j]]
		}
	}
	for n, i := range idx {
		select {
		case s.stripes[i] <- struct{}{}:
		case <-ctx.Done():
			unlock(n)
			return nil, ctx.Err()
		}
	}
	return func() { unlock(len(idx)) }, nil
}

// notFound turns pgx.ErrNoRows into shlyuz.ErrNoRows, naming what was missing.
func notFound(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("cockroach: %s: %w", what, shlyuz.ErrNoRows)
	}
	return fmt.Errorf("cockroach: %s: %w", what, err)
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func isUniqueViolation(err error) bool     { return sqlState(err) == "23505" }
func isForeignKeyViolation(err error) bool { return sqlState(err) == "23503" }

// rowTo adapts a sqlutil scan function to pgx.CollectRows.
func rowTo[T any](scan func(sqlutil.Scanner) (T, error)) pgx.RowToFunc[T] {
	return func(row pgx.CollectableRow) (T, error) { return scan(row) }
}
