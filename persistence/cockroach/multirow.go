package cockroach

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// The multi-row statements, by the number of rows they write (sqlutil.Sizes):
// pgx's statement cache holds a few of each kind, each prepared once per
// connection. An entries' insert returns the ids of the entries it added.
var insertEntries, upsertGenerations = map[int]string{}, map[int]string{}

func init() {
	for _, n := range sqlutil.Sizes() {
		insertEntries[n] = sqlutil.InsertEntries(n) + ` RETURNING id`
		upsertGenerations[n] = sqlutil.UpsertGenerations(n)
	}
}

// writeRows inserts the entries listed by index in queued (of distinct ids)
// and upserts the generations (of distinct ids), in one round trip that
// async sends SET LOCAL synchronous_commit with. It returns the ids of the
// entries it added.
func writeRows(ctx context.Context, tx pgx.Tx, entries []shlyuz.LedgerEntry, queued []int, gens []*shlyuz.Generation, async bool) (map[string]bool, error) {
	batch := &pgx.Batch{}
	inserted := make(map[string]bool, len(queued))
	addID := func(rows pgx.Rows) error {
		var id string
		_, err := pgx.ForEachRow(rows, []any{&id}, func() error { inserted[id] = true; return nil })
		return err
	}
	for _, n := range sqlutil.Pieces(len(queued)) {
		args := make([]any, 0, n*sqlutil.EntryArity)
		for _, i := range queued[:n] {
			args = sqlutil.AppendEntryArgs(args, &entries[i])
		}
		queued = queued[n:]
		batch.Queue(insertEntries[n], args...).Query(addID)
	}
	for _, n := range sqlutil.Pieces(len(gens)) {
		args := make([]any, 0, n*sqlutil.GenerationArity)
		for _, g := range gens[:n] {
			args = sqlutil.AppendGenerationArgs(args, g)
		}
		gens = gens[n:]
		batch.Queue(upsertGenerations[n], args...)
	}
	if async { // read at COMMIT: it rides in this round trip
		batch.Queue(asyncCommit)
	}
	if batch.Len() == 0 {
		return nil, nil
	}
	// Close reads every result, the inserts' through addID.
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("cockroach: commit: write rows: %w", err)
	}
	return inserted, nil
}
