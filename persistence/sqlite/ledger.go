package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// ClaimBalance raises the account's epoch by one and returns the balance with
// the new epoch; entries written at an older epoch are fenced from then on.
func (s *Store) ClaimBalance(ctx context.Context, accountID string) (shlyuz.Balance, error) {
	var b shlyuz.Balance
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		b, err = sqlutil.ScanBalance(tx.QueryRowContext(ctx,
			`UPDATE balances SET epoch = epoch + 1 WHERE account_id = ? RETURNING `+sqlutil.BalanceColumns, accountID))
		if err != nil {
			return notFound(err, "claim balance of "+accountID)
		}
		return nil
	})
	return b, err
}

// Balance returns the account's balance, or shlyuz.ErrNoRows.
func (s *Store) Balance(ctx context.Context, accountID string) (shlyuz.Balance, error) {
	b, err := sqlutil.ScanBalance(s.db.QueryRowContext(ctx, `SELECT `+sqlutil.BalanceColumns+` FROM balances WHERE account_id = ?`, accountID))
	if err != nil {
		return shlyuz.Balance{}, notFound(err, "balance of "+accountID)
	}
	return b, nil
}

// Commit writes the batch in one transaction: each entry is applied (inserted
// and added to its balance), a duplicate (its id exists) or fenced (its epoch
// is older than its account's); generations are inserted or replaced. An entry
// of an unknown account fails the whole batch.
func (s *Store) Commit(ctx context.Context, b shlyuz.Batch) (shlyuz.CommitResult, error) {
	if err := sqlutil.CheckBatch(b); err != nil {
		return shlyuz.CommitResult{}, fmt.Errorf("sqlite: %w", err)
	}
	if len(b.Entries) == 0 && len(b.Generations) == 0 {
		return shlyuz.CommitResult{}, nil
	}
	var res shlyuz.CommitResult
	try := func(careful bool) error {
		return s.write(ctx, func(tx *sql.Tx) error {
			var err error
			res, err = s.commit(ctx, tx, b, careful)
			return err
		})
	}
	err := try(false)
	if errors.Is(err, errTaken) {
		err = try(true)
	}
	if err != nil {
		return shlyuz.CommitResult{}, err
	}
	return res, nil
}

// errTaken fails a try of Commit whose insert found an entry's id taken.
var errTaken = errors.New("an entry's id is taken")

// commit is one try of Commit's transaction. The first try assumes that the
// entries it inserts are not in the ledger, as all but replays are: it looks
// up only the fenced ones (a fenced entry whose id exists is a replay, a
// duplicate), and when an insert adds fewer rows than it wrote, the try fails
// with errTaken. Commit then tries again carefully, looking up every entry
// first. (Learning which rows each insert added, with RETURNING, cost more
// than a tenth of a large batch's CPU.) The transaction holds the database's
// write lock, so what it looked up stays so.
func (s *Store) commit(ctx context.Context, tx *sql.Tx, b shlyuz.Batch, careful bool) (shlyuz.CommitResult, error) {
	epochs, err := s.readEpochs(ctx, tx, sqlutil.AccountsOf(b.Entries))
	if err != nil {
		return shlyuz.CommitResult{}, fmt.Errorf("sqlite: commit: read epochs: %w", err)
	}
	outcomes, err := sqlutil.Judge(b.Entries, epochs)
	if err != nil {
		return shlyuz.CommitResult{}, fmt.Errorf("sqlite: %w", err)
	}

	var lookup []string
	if careful { // every entry: Judge gave each Insert or Fenced
		lookup = make([]string, len(b.Entries))
		for i := range b.Entries {
			lookup[i] = b.Entries[i].ID
		}
	} else {
		lookup = sqlutil.IDsWith(b.Entries, outcomes, sqlutil.Fenced)
	}
	existing, err := s.existingEntries(ctx, tx, lookup)
	if err != nil {
		return shlyuz.CommitResult{}, fmt.Errorf("sqlite: commit: look up entries: %w", err)
	}
	sqlutil.MarkExisting(b.Entries, outcomes, existing)
	queued := sqlutil.ToInsert(b.Entries, outcomes)
	if err := s.insertEntries(ctx, tx, b.Entries, queued); err != nil {
		return shlyuz.CommitResult{}, err
	}
	for _, i := range queued {
		outcomes[i] = sqlutil.Applied
	}

	result, deltas := sqlutil.Result(b.Entries, outcomes)
	apply := tx.StmtContext(ctx, s.stmt.applyDelta)
	for _, d := range deltas {
		if _, err := apply.ExecContext(ctx, d.Package, d.Bought, d.ExpiresAt, d.ExpiresAt, d.AccountID); err != nil {
			return shlyuz.CommitResult{}, fmt.Errorf("sqlite: commit: balance of %s: %w", d.AccountID, err)
		}
	}

	if err := s.upsertGenerations(ctx, tx, sqlutil.UniqueGenerations(b.Generations)); err != nil {
		return shlyuz.CommitResult{}, err
	}
	return result, nil
}

// existingEntries returns which of the ids are in the ledger.
func (s *Store) existingEntries(ctx context.Context, tx *sql.Tx, ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := tx.StmtContext(ctx, s.stmt.existing).QueryContext(ctx, jsonIDs(ids))
	if err != nil {
		return nil, err
	}
	found, err := collect(rows, scanString)
	if err != nil {
		return nil, err
	}
	existing := make(map[string]bool, len(found))
	for _, id := range found {
		existing[id] = true
	}
	return existing, nil
}

// readEpochs reads the epochs of the accounts, in one prepared statement: a
// lookup by key for one account (the usual batch at low concurrency; reading
// it through json_each cost a seventh of a lone commit's CPU), the JSON
// array's for more.
func (s *Store) readEpochs(ctx context.Context, tx *sql.Tx, accounts []string) (map[string]int64, error) {
	epochs := make(map[string]int64, len(accounts))
	switch len(accounts) {
	case 0:
		return epochs, nil
	case 1:
		var epoch int64
		err := tx.StmtContext(ctx, s.stmt.epoch).QueryRowContext(ctx, accounts[0]).Scan(&epoch)
		if err == nil {
			epochs[accounts[0]] = epoch
		} else if !errors.Is(err, sql.ErrNoRows) { // an unknown account has no epoch, as below
			return nil, err
		}
		return epochs, nil
	}
	rows, err := tx.StmtContext(ctx, s.stmt.epochs).QueryContext(ctx, jsonIDs(accounts))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var epoch int64
		if err := rows.Scan(&id, &epoch); err != nil {
			return nil, err
		}
		epochs[id] = epoch
	}
	return epochs, rows.Err()
}

const applyDelta = `UPDATE balances SET
	package_credits = package_credits + ?,
	bought_credits = bought_credits + ?,
	package_expires_at = CASE WHEN ? <> 0 THEN ? ELSE package_expires_at END
	WHERE account_id = ?`

// Entry returns the ledger entry with the id, or shlyuz.ErrNoRows.
func (s *Store) Entry(ctx context.Context, id string) (shlyuz.LedgerEntry, error) {
	e, err := sqlutil.ScanEntry(s.db.QueryRowContext(ctx, `SELECT `+sqlutil.EntryColumns+` FROM ledger_entries WHERE id = ?`, id))
	if err != nil {
		return shlyuz.LedgerEntry{}, notFound(err, "ledger entry "+id)
	}
	return e, nil
}

// Reconcile lists, sorted, the accounts whose balance differs from the sums of their entries.
func (s *Store) Reconcile(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, sqlutil.ReconcileQuery)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reconcile: %w", err)
	}
	ids, err := collect(rows, scanString)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reconcile: %w", err)
	}
	sort.Strings(ids)
	return ids, nil
}

// Generation returns the generation record with the id, or shlyuz.ErrNoRows.
func (s *Store) Generation(ctx context.Context, id string) (shlyuz.Generation, error) {
	g, err := sqlutil.ScanGeneration(s.db.QueryRowContext(ctx, `SELECT `+sqlutil.GenerationColumns+` FROM generations WHERE id = ?`, id))
	if err != nil {
		return shlyuz.Generation{}, notFound(err, "generation "+id)
	}
	return g, nil
}
