package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// prepared are the journal commit's statements, prepared once when the store
// opens. database/sql keeps each one prepared on every connection it has run
// on, and Tx.StmtContext reuses that, so a commit parses no SQL: parsing
// would be a large share of a short commit's CPU.
type prepared struct {
	epoch      *sql.Stmt // the epoch of one account
	epochs     *sql.Stmt // the epochs of the accounts named in a JSON array
	applyDelta *sql.Stmt
	existing   *sql.Stmt // the ids, of those in a JSON array, that are in the ledger
	// The multi-row statements, by the number of rows they write.
	insertEntries multiRow
	upsertGens    multiRow
}

// epochOf reads the epoch of one account.
const epochOf = `SELECT epoch FROM balances WHERE account_id = ?`

// epochsOf reads the epoch of every account named in a JSON array of ids: one
// statement whatever the number of accounts.
const epochsOf = `SELECT account_id, epoch FROM balances WHERE account_id IN (SELECT value FROM json_each(?))`

// existingOf reads which of the ids in a JSON array are in the ledger.
const existingOf = `SELECT id FROM ledger_entries WHERE id IN (SELECT value FROM json_each(?))`

func (s *Store) prepare(ctx context.Context) error {
	prepare := func(to **sql.Stmt, query string) error {
		st, err := s.db.PrepareContext(ctx, query)
		if err != nil {
			return fmt.Errorf("prepare %.40q: %w", query, err)
		}
		*to = st
		return nil
	}
	for _, p := range []struct {
		to  **sql.Stmt
		sql string
	}{
		{&s.stmt.epoch, epochOf},
		{&s.stmt.epochs, epochsOf},
		{&s.stmt.applyDelta, applyDelta},
		{&s.stmt.existing, existingOf},
	} {
		if err := prepare(p.to, p.sql); err != nil {
			return err
		}
	}
	s.stmt.insertEntries, s.stmt.upsertGens = multiRow{}, multiRow{}
	for _, n := range sqlutil.Sizes() {
		for _, p := range []struct {
			to  multiRow
			sql string
		}{
			{s.stmt.insertEntries, positional(sqlutil.InsertEntries(n))},
			{s.stmt.upsertGens, positional(sqlutil.UpsertGenerations(n))},
		} {
			var st *sql.Stmt
			if err := prepare(&st, p.sql); err != nil {
				return err
			}
			p.to[n] = st
		}
	}
	return nil
}

// closeStatements closes the prepared statements that were prepared.
func (s *Store) closeStatements() {
	all := []*sql.Stmt{s.stmt.epoch, s.stmt.epochs, s.stmt.applyDelta, s.stmt.existing}
	for _, m := range []multiRow{s.stmt.insertEntries, s.stmt.upsertGens} {
		for _, st := range m {
			all = append(all, st)
		}
	}
	for _, st := range all {
		if st != nil {
			_ = st.Close()
		}
	}
}

// jsonIDs is ids as the JSON array epochsOf takes.
func jsonIDs(ids []string) string {
	b, _ := json.Marshal(ids) // strings always marshal
	return string(b)
}

// positional turns the $k placeholders of a query that binds its values in
// order (the multi-row statements) into plain ?s: modernc's driver looks up
// a ?NNN's name for every value it binds, an allocation each (a commit of 200
// charges allocated twice as often with them, and took four times as long).
func positional(q string) string { return dollar.ReplaceAllString(q, "?") }
