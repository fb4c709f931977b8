package cockroach

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// ClaimBalance raises the account's epoch by one and returns the balance with
// the new epoch; entries written at an older epoch are fenced from then on.
func (s *Store) ClaimBalance(ctx context.Context, accountID string) (shlyuz.Balance, error) {
	unlock, err := s.lockAccounts(ctx, []string{accountID})
	if err != nil {
		return shlyuz.Balance{}, fmt.Errorf("cockroach: claim balance of %s: %w", accountID, err)
	}
	defer unlock()
	var b shlyuz.Balance
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		b, err = sqlutil.ScanBalance(tx.QueryRow(ctx,
			`UPDATE balances SET epoch = epoch + 1 WHERE account_id = $1 RETURNING `+sqlutil.BalanceColumns, accountID))
		if err != nil {
			return notFound(err, "claim balance of "+accountID)
		}
		return nil
	})
	if err != nil {
		return shlyuz.Balance{}, err
	}
	return b, nil
}

// Balance returns the account's balance, or shlyuz.ErrNoRows.
func (s *Store) Balance(ctx context.Context, accountID string) (shlyuz.Balance, error) {
	var b shlyuz.Balance
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		b, err = sqlutil.ScanBalance(s.pool.QueryRow(ctx, `SELECT `+sqlutil.BalanceColumns+` FROM balances WHERE account_id = $1`, accountID))
		return err
	})
	if err != nil {
		return shlyuz.Balance{}, notFound(err, "balance of "+accountID)
	}
	return b, nil
}

// Commit writes the batch in one transaction: each entry is applied (inserted
// and added to its balance), a duplicate (its id exists) or fenced (its epoch
// is older than its account's); generations are inserted or replaced. An entry
// of an unknown account fails the whole batch. The journal's usual batch takes
// one round trip (commitOneTrip); the others take commit's several.
func (s *Store) Commit(ctx context.Context, b shlyuz.Batch) (shlyuz.CommitResult, error) {
	if err := sqlutil.CheckBatch(b); err != nil {
		return shlyuz.CommitResult{}, fmt.Errorf("cockroach: %w", err)
	}
	if len(b.Entries) == 0 && len(b.Generations) == 0 {
		return shlyuz.CommitResult{}, nil
	}
	accounts := sqlutil.AccountsOf(b.Entries)
	unlock, err := s.lockAccounts(ctx, accounts)
	if err != nil {
		return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: %w", err)
	}
	defer unlock()
	async := s.postgres && !s.syncAll && chargesOnly(b)
	if oneTrip(b) {
		return s.commitOneTrip(ctx, b, accounts, async)
	}
	var res shlyuz.CommitResult
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		res, err = commit(ctx, tx, b, accounts, async)
		return err
	})
	if err != nil {
		return shlyuz.CommitResult{}, err
	}
	return res, nil
}

const applyDelta = `UPDATE balances SET
	package_credits = package_credits + $1,
	bought_credits = bought_credits + $2,
	package_expires_at = CASE WHEN CAST($3 AS BIGINT) <> 0 THEN CAST($3 AS BIGINT) ELSE package_expires_at END
	WHERE account_id = $4`

// chargesOnly says whether the batch holds no entry but charges (and
// generation records): the journal's usual batch.
func chargesOnly(b shlyuz.Batch) bool {
	for i := range b.Entries {
		if b.Entries[i].Kind != shlyuz.EntryCharge {
			return false
		}
	}
	return true
}

// asyncCommit lets PostgreSQL acknowledge the transaction's COMMIT before its
// WAL reaches the disk. The journal's charge batches take it: the
// threat they guard against is the gateway's crash, and a commit the server
// has acknowledged survives a kill -9 of the gateway; only a crash of the
// database server itself could lose the last few hundred milliseconds of
// charges (wal_writer_delay × 3), never make the ledger disagree with the
// balances. Top-ups, payments, adjustments and claims stay synchronous.
// CockroachDB has no such setting: its commits stay as they are.
const asyncCommit = `SET LOCAL synchronous_commit = off`

// commit is one try of Commit's transaction. It keeps no state across tries.
// Its statements go through pgx's statement cache: each is prepared once per
// connection.
func commit(ctx context.Context, tx pgx.Tx, b shlyuz.Batch, accounts []string, async bool) (shlyuz.CommitResult, error) {
	epochs := map[string]int64{}
	if len(accounts) > 0 {
		// Lock the balance rows in a fixed order, and learn their epochs.
		rows, err := tx.Query(ctx,
			`SELECT account_id, epoch FROM balances WHERE account_id = ANY($1) ORDER BY account_id FOR UPDATE`, accounts)
		if err != nil {
			return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: read epochs: %w", err)
		}
		var id string
		var epoch int64
		_, err = pgx.ForEachRow(rows, []any{&id, &epoch}, func() error { epochs[id] = epoch; return nil })
		if err != nil {
			return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: read epochs: %w", err)
		}
	}
	outcomes, err := sqlutil.Judge(b.Entries, epochs)
	if err != nil {
		return shlyuz.CommitResult{}, fmt.Errorf("cockroach: %w", err)
	}

	// A fenced entry whose id exists is a replay: report it as a duplicate.
	existing := map[string]bool{}
	if fenced := sqlutil.IDsWith(b.Entries, outcomes, sqlutil.Fenced); len(fenced) > 0 {
		rows, err := tx.Query(ctx, `SELECT id FROM ledger_entries WHERE id = ANY($1)`, fenced)
		if err != nil {
			return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: look up fenced entries: %w", err)
		}
		var id string
		if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { existing[id] = true; return nil }); err != nil {
			return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: look up fenced entries: %w", err)
		}
	}
	sqlutil.MarkExisting(b.Entries, outcomes, existing)

	// Insert the entries and upsert the generations in one round trip.
	queued := sqlutil.ToInsert(b.Entries, outcomes)
	inserted, err := writeRows(ctx, tx, b.Entries, queued, sqlutil.UniqueGenerations(b.Generations), async)
	if err != nil {
		return shlyuz.CommitResult{}, err
	}
	sqlutil.MarkInserted(b.Entries, outcomes, queued, inserted)

	result, deltas := sqlutil.Result(b.Entries, outcomes)
	batch := &pgx.Batch{}
	for _, d := range deltas {
		batch.Queue(applyDelta, d.Package, d.Bought, d.ExpiresAt, d.AccountID)
	}
	var missed error // a balance row that was locked above cannot vanish; say so if it does
	if err := sendBatch(ctx, tx, batch, func(i int, n int64) {
		if n != 1 && missed == nil {
			missed = fmt.Errorf("balance of %s: %d rows updated", deltas[i].AccountID, n)
		}
	}); err != nil {
		return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: apply: %w", err)
	}
	if missed != nil {
		return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: apply: %w", missed)
	}
	return result, nil
}

// sendBatch runs the queued statements and hands each one's rows affected to
// seen, in order.
func sendBatch(ctx context.Context, tx pgx.Tx, batch *pgx.Batch, seen func(i int, rowsAffected int64)) error {
	if batch.Len() == 0 {
		return nil
	}
	br := tx.SendBatch(ctx, batch)
	for i := 0; i < batch.Len(); i++ {
		tag, err := br.Exec()
		if err != nil {
			_ = br.Close()
			return err
		}
		seen(i, tag.RowsAffected())
	}
	return br.Close()
}

// Entry returns the ledger entry with the id, or shlyuz.ErrNoRows.
func (s *Store) Entry(ctx context.Context, id string) (shlyuz.LedgerEntry, error) {
	var e shlyuz.LedgerEntry
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		e, err = sqlutil.ScanEntry(s.pool.QueryRow(ctx, `SELECT `+sqlutil.EntryColumns+` FROM ledger_entries WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return shlyuz.LedgerEntry{}, notFound(err, "ledger entry "+id)
	}
	return e, nil
}

// Reconcile lists, sorted, the accounts whose balance differs from the sums of their entries.
func (s *Store) Reconcile(ctx context.Context) ([]string, error) {
	var ids []string
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, sqlutil.ReconcileQuery)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cockroach: reconcile: %w", err)
	}
	sort.Strings(ids)
	return ids, nil
}

// Generation returns the generation record with the id, or shlyuz.ErrNoRows.
func (s *Store) Generation(ctx context.Context, id string) (shlyuz.Generation, error) {
	var g shlyuz.Generation
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		g, err = sqlutil.ScanGeneration(s.pool.QueryRow(ctx, `SELECT `+sqlutil.GenerationColumns+` FROM generations WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return shlyuz.Generation{}, notFound(err, "generation "+id)
	}
	return g, nil
}
