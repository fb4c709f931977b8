package cockroach

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// A reply that waits for its charge waits for Commit: each round trip to the
// server is latency the client sees. The journal's usual batch (charges and
// generation records, distinct ids, no package expiry) is therefore written
// by one pipeline, sent at once and answered at once: BEGIN, the statements
// that judge, insert and apply the entries in the server (applyEntries) and
// upsert the generations, COMMIT. The judgement is the one commit makes in
// Go, moved into SQL; batches it cannot express (an id twice, an expiry to
// set, whose order matters) take commit's transaction.

// oneTrip says whether the batch can be written by commitOneTrip: its
// entries' ids are distinct and none sets a package expiry.
func oneTrip(b shlyuz.Batch) bool {
	for i := range b.Entries {
		if !b.Entries[i].PackageExpiresAt.IsZero() {
			return false
		}
	}
	if len(b.Entries) < 2 {
		return true
	}
	seen := make(map[string]struct{}, len(b.Entries))
	for i := range b.Entries {
		if _, ok := seen[b.Entries[i].ID]; ok {
			return false
		}
		seen[b.Entries[i].ID] = struct{}{}
	}
	return true
}

// The outcomes applyEntries reports, by entry.
const (
	tripApplied   = 1
	tripDuplicate = 2
	tripFenced    = 3
)

// applyEntries, by the number of entries it writes (sqlutil.Sizes).
var applyEntries = map[int]string{}

func init() {
	for _, n := range sqlutil.Sizes() {
		applyEntries[n] = applyEntriesSQL(n)
	}
}

// applyEntriesSQL is the statement that commits n entries of distinct ids,
// which commit does in several round trips: it locks their balance rows (in
// the accounts' order, as commit does) and reads their epochs, inserts the
// entries that are not fenced (an id that exists adds nothing), adds what it
// inserted to the balances, and returns each entry's outcome by its place in
// the batch. A fenced entry whose id exists is a replay, a duplicate.
//
// An entry of an account without a balance row must fail the whole
// transaction, and a statement can only do that by failing: the insert's
// foreign key does, and where the entry's id exists already (no row is
// inserted) the outcome's cast of a text naming the account does.
//
// Every parameter is cast: the VALUES list gives the server no column to
// infer its type from. All data-modifying parts run to completion whether
// or not the result reads them, on PostgreSQL and CockroachDB alike.
func applyEntriesSQL(n int) string {
	var b strings.Builder
	b.WriteString(`WITH input (ord, id, account_id, key_id, kind, package_delta, bought_delta, package_expires_at, epoch, created_at) AS (VALUES `)
	k := 0
	param := func(typ string) {
		k++
		b.WriteString(`CAST($`)
		b.WriteString(strconv.Itoa(k))
		b.WriteString(` AS `)
		b.WriteString(typ)
		b.WriteByte(')')
	}
	for r := range n {
		if r > 0 {
			b.WriteString(`, `)
		}
		b.WriteByte('(')
		b.WriteString(strconv.Itoa(r))
		for _, typ := range [sqlutil.EntryArity]string{"TEXT", "TEXT", "TEXT", "TEXT", "BIGINT", "BIGINT", "BIGINT", "BIGINT", "BIGINT"} {
			b.WriteString(`, `)
			param(typ)
		}
		b.WriteByte(')')
	}
	b.WriteString(`),
locked AS (
	SELECT account_id, epoch FROM balances
	WHERE account_id IN (SELECT account_id FROM input) ORDER BY account_id FOR UPDATE
),
judged AS (
	SELECT i.*, l.account_id AS known, (i.epoch <> 0 AND i.epoch < l.epoch) AS fenced
	FROM input AS i LEFT JOIN locked AS l ON l.account_id = i.account_id
),
ins AS (
	INSERT INTO ledger_entries (` + sqlutil.EntryColumns + `)
	SELECT id, account_id, key_id, kind, package_delta, bought_delta, package_expires_at, epoch, created_at
	FROM judged WHERE fenced IS NOT TRUE
	ON CONFLICT (id) DO NOTHING
	RETURNING id, account_id, package_delta, bought_delta
),
upd AS (
	UPDATE balances SET
		package_credits = package_credits + d.package_delta,
		bought_credits = bought_credits + d.bought_delta
	FROM (SELECT account_id, CAST(sum(package_delta) AS BIGINT) AS package_delta, CAST(sum(bought_delta) AS BIGINT) AS bought_delta
		FROM ins GROUP BY account_id) AS d
	WHERE balances.account_id = d.account_id
	RETURNING balances.account_id
)
SELECT j.ord,
	CASE WHEN a.id IS NOT NULL THEN ` + strconv.Itoa(tripApplied) + `
		WHEN j.fenced AND NOT EXISTS (SELECT 1 FROM ledger_entries AS e WHERE e.id = j.id) THEN ` + strconv.Itoa(tripFenced) + `
		ELSE ` + strconv.Itoa(tripDuplicate) + ` END,
	CAST(CASE WHEN j.known IS NULL THEN 'no balance row for the account ' || j.account_id END AS BIGINT)
FROM judged AS j LEFT JOIN ins AS a ON a.id = j.id`)
	return b.String()
}

// lockBalances locks the balance rows of the accounts, in their order.
const lockBalances = `SELECT account_id FROM balances WHERE account_id = ANY($1) ORDER BY account_id FOR UPDATE`

// Transaction control, queued in the pipeline like any statement.
const (
	beginSerializable = `BEGIN ISOLATION LEVEL SERIALIZABLE`
	commitTx          = `COMMIT`
)

// commitOneTrip is Commit's transaction in one round trip (a batch oneTrip
// accepts, of the accounts listed sorted), retried whole on a serialization
// failure like inTx's.
func (s *Store) commitOneTrip(ctx context.Context, b shlyuz.Batch, accounts []string, async bool) (shlyuz.CommitResult, error) {
	outcomes := make([]uint8, len(b.Entries))
	gens := sqlutil.UniqueGenerations(b.Generations)
	err := s.retryTx(ctx, func(ctx context.Context) error {
		clear(outcomes)
		return s.pipeline(ctx, b.Entries, accounts, gens, outcomes, async)
	})
	if err != nil {
		if isForeignKeyViolation(err) || sqlState(err) == "22P02" {
			return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: an entry's account does not exist: %w (%v)", shlyuz.ErrNoRows, err)
		}
		return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: %w", err)
	}
	var res shlyuz.CommitResult
	for i := range b.Entries {
		id := b.Entries[i].ID
		switch outcomes[i] {
		case tripApplied:
			res.Applied = append(res.Applied, id)
		case tripDuplicate:
			res.Duplicate = append(res.Duplicate, id)
		case tripFenced:
			res.Fenced = append(res.Fenced, id)
		default: // the server answered for fewer entries than it was sent
			return shlyuz.CommitResult{}, fmt.Errorf("cockroach: commit: no outcome for entry %s", id)
		}
	}
	return res, nil
}

// pipeline sends one try of commitOneTrip's transaction and reads its
// answers, each entry's outcome into outcomes. A try that fails leaves its
// connection's transaction aborted: it is rolled back before the connection
// goes back to the pool.
func (s *Store) pipeline(ctx context.Context, entries []shlyuz.LedgerEntry, accounts []string, gens []*shlyuz.Generation, outcomes []uint8, async bool) error {
	batch := &pgx.Batch{}
	batch.Queue(beginSerializable)
	if async {
		batch.Queue(asyncCommit)
	}
	pieces := sqlutil.Pieces(len(entries))
	if len(pieces) > 1 {
		// Each piece locks its own accounts: lock all of them first, in the
		// order every commit takes them, so that two nodes' commits never
		// wait on each other.
		batch.Queue(lockBalances, accounts)
	}
	base := 0
	for _, n := range pieces {
		args := make([]any, 0, n*sqlutil.EntryArity)
		for i := range entries[base : base+n] {
			args = sqlutil.AppendEntryArgs(args, &entries[base+i])
		}
		off := base
		batch.Queue(applyEntries[n], args...).Query(func(rows pgx.Rows) error {
			var ord, outcome int64
			var check *int64
			_, err := pgx.ForEachRow(rows, []any{&ord, &outcome, &check}, func() error {
				if ord < 0 || ord >= int64(n) {
					return fmt.Errorf("entry %d of %d", ord, n)
				}
				outcomes[off+int(ord)] = uint8(outcome)
				return nil
			})
			return err
		})
		base += n
	}
	for _, n := range sqlutil.Pieces(len(gens)) {
		args := make([]any, 0, n*sqlutil.GenerationArity)
		for _, g := range gens[:n] {
			args = sqlutil.AppendGenerationArgs(args, g)
		}
		gens = gens[n:]
		batch.Queue(upsertGenerations[n], args...)
	}
	batch.Queue(commitTx)

	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	err = conn.SendBatch(ctx, batch).Close()
	if err != nil && conn.Conn().PgConn().TxStatus() != 'I' {
		if _, rbErr := conn.Exec(ctx, `ROLLBACK`); rbErr != nil {
			err = errors.Join(err, rbErr)
			// A connection left inside a transaction is not reused: the pool closes it on release.
		}
	}
	return err
}
