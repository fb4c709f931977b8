package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// multiRow holds a statement prepared for each of the sizes sqlutil.Sizes
// lists.
type multiRow map[int]*sql.Stmt

// rowArgs keeps the commits' sqlutil.Args: their boxes and values slice
// serve the next commit.
var rowArgs = sync.Pool{New: func() any { return new(sqlutil.Args) }}

// insertEntries inserts the entries listed by index in queued, of distinct
// ids. An id already in the ledger fails it with errTaken.
func (s *Store) insertEntries(ctx context.Context, tx *sql.Tx, entries []shlyuz.LedgerEntry, queued []int) error {
	a := rowArgs.Get().(*sqlutil.Args)
	defer rowArgs.Put(a)
	var args []any
	for _, n := range sqlutil.Pieces(len(queued)) {
		args = a.Values[:0]
		for _, i := range queued[:n] {
			args = a.Entry(args, &entries[i])
		}
		a.Values = args
		first := entries[queued[0]].ID
		queued = queued[n:]
		res, err := tx.StmtContext(ctx, s.stmt.insertEntries[n]).ExecContext(ctx, args...)
		if err != nil {
			return fmt.Errorf("sqlite: commit: insert %d entries from %s: %w", n, first, err)
		}
		if added, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("sqlite: commit: insert %d entries from %s: %w", n, first, err)
		} else if added != int64(n) {
			return fmt.Errorf("sqlite: commit: insert %d entries from %s: %w", n, first, errTaken)
		}
	}
	return nil
}

// upsertGenerations inserts or replaces the generations, of distinct ids.
func (s *Store) upsertGenerations(ctx context.Context, tx *sql.Tx, gens []*shlyuz.Generation) error {
	a := rowArgs.Get().(*sqlutil.Args)
	defer rowArgs.Put(a)
	var args []any
	for _, n := range sqlutil.Pieces(len(gens)) {
		args = a.Values[:0]
		for _, g := range gens[:n] {
			args = a.Generation(args, g)
		}
		a.Values = args
		first := gens[0].ID
		gens = gens[n:]
		if _, err := tx.StmtContext(ctx, s.stmt.upsertGens[n]).ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("sqlite: commit: upsert %d generations from %s: %w", n, first, err)
		}
	}
	return nil
}
