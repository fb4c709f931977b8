package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// prepared are the journal commit's statements, prepared once when the store
// opens. database/sql keeps each one prepared on every connection it has run
// on, and Tx.StmtContext reuses that, so a commit parses no SQL (parsing per
// commit was 5–17% of the gateway's CPU, issue 20).
type prepared struct {
	epoch       *sql.Stmt // the epoch of one account
	epochs      *sql.Stmt // the epochs of the accounts named in a JSON array
	insertEntry *sql.Stmt
	applyDelta  *sql.Stmt
	upsertGen   *sql.Stmt
}

// epochOf reads the epoch of one account.
const epochOf = `SELECT epoch FROM balances WHERE account_id = ?`

// epochsOf reads the epoch of every account named in a JSON array of ids: one
// statement whatever the number of accounts.
const epochsOf = `SELECT account_id, epoch FROM balances WHERE account_id IN (SELECT value FROM json_each(?))`

func (s *Store) prepare(ctx context.Context) error {
	for _, p := range []struct {
		to  **sql.Stmt
		sql string
	}{
		{&s.stmt.epoch, epochOf},
		{&s.stmt.epochs, epochsOf},
		{&s.stmt.insertEntry, insertEntry},
		{&s.stmt.applyDelta, applyDelta},
		{&s.stmt.upsertGen, upsertGenerationSQL},
	} {
		st, err := s.db.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("prepare %.40q: %w", p.sql, err)
		}
		*p.to = st
	}
	return nil
}

// closeStatements closes the prepared statements that were prepared.
func (s *Store) closeStatements() {
	for _, st := range []*sql.Stmt{s.stmt.epoch, s.stmt.epochs, s.stmt.insertEntry, s.stmt.applyDelta, s.stmt.upsertGen} {
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
