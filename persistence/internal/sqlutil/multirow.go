package sqlutil

import (
	"strconv"
	"strings"

	"github.com/shlyuz/shlyuz"
)

// A commit writes its entries and generations with multi-row statements: one
// INSERT of many rows costs a store far less per row than a statement per
// row. The number of rows in a statement is one of a few sizes (Sizes), so
// each size is prepared once and reused.

// The numbers of columns an entry and a generation row bind.
const (
	EntryArity      = 9
	GenerationArity = 17
)

// MostRows is the most rows one statement of a commit writes: a batch of
// entries (or generations) goes in statements of MostRows rows and one of
// each smaller power of two its rest needs (Pieces). A generation binds 16
// values, so the largest statement binds 1024, far below SQLite's 32766 and
// PostgreSQL's 65535.
const MostRows = 64

// Sizes lists the row counts of the multi-row statements a store prepares:
// MostRows, MostRows/2, ... down to 1.
func Sizes() []int {
	var out []int
	for n := MostRows; n >= 1; n /= 2 {
		out = append(out, n)
	}
	return out
}

// Pieces splits n rows into statements of the sizes Sizes lists: as many of
// MostRows rows as fit, then the rest in falling powers of two (its binary
// digits), so no more than log2(MostRows) statements are less than full.
func Pieces(n int) []int {
	var out []int
	for ; n >= MostRows; n -= MostRows {
		out = append(out, MostRows)
	}
	for size := MostRows / 2; size >= 1; size /= 2 {
		if n >= size {
			out = append(out, size)
			n -= size
		}
	}
	return out
}

// Values is the VALUES list of a statement writing rows rows of cols columns,
// "($1, $2), ($3, $4)", in the $k placeholders the shared queries are written
// with (SQLite's store turns them into plain ?s).
func Values(rows, cols int) string {
	var b strings.Builder
	k := 0
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			k++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(k))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// InsertEntries is the statement inserting n entries; an entry whose id
// exists adds nothing.
func InsertEntries(n int) string {
	return `INSERT INTO ledger_entries (` + EntryColumns + `) VALUES ` +
		Values(n, EntryArity) + ` ON CONFLICT (id) DO NOTHING`
}

// UpsertGenerations is the statement inserting or replacing n generations,
// which must have distinct ids.
func UpsertGenerations(n int) string {
	return `INSERT INTO generations (` + GenerationColumns + `) VALUES ` +
		Values(n, GenerationArity) + `
	ON CONFLICT (id) DO UPDATE SET
		account_id = excluded.account_id, key_id = excluded.key_id, model = excluded.model,
		upstream = excluded.upstream, attempts = excluded.attempts, streamed = excluded.streamed,
		prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
		credits = excluded.credits, latency_ms = excluded.latency_ms, status = excluded.status,
		finish_reason = excluded.finish_reason, created_at = excluded.created_at,
		usage_estimated = excluded.usage_estimated, billing = excluded.billing, end_user = excluded.end_user`
}

// ToInsert lists, by index, the entries a commit inserts, judging the batch
// in order: an entry judged Insert or Duplicate leaves its id in the ledger
// (its insert adds the row or finds it there), so a later entry of that id,
// to insert or fenced, is a Duplicate and is marked so here. A fenced entry
// leaves nothing: a later entry of its id is judged by its own epoch.
func ToInsert(entries []shlyuz.LedgerEntry, outcomes []Outcome) []int {
	out := make([]int, 0, len(entries))
	var there map[string]bool // the ids earlier entries leave in the ledger; a batch of one needs none
	for i := range entries {
		o := outcomes[i]
		if len(entries) > 1 {
			id := entries[i].ID
			if there[id] {
				outcomes[i] = Duplicate
				continue
			}
			if o == Insert || o == Duplicate {
				if there == nil {
					there = make(map[string]bool, len(entries))
				}
				there[id] = true
			}
		}
		if o == Insert {
			out = append(out, i)
		}
	}
	return out
}

// MarkInserted settles the entries ToInsert listed: Applied when the insert
// added the entry's row (its id is in inserted), Duplicate when the id was
// there already.
func MarkInserted(entries []shlyuz.LedgerEntry, outcomes []Outcome, queued []int, inserted map[string]bool) {
	for _, i := range queued {
		if inserted[entries[i].ID] {
			outcomes[i] = Applied
		} else {
			outcomes[i] = Duplicate
		}
	}
}

// UniqueGenerations lists the generations once per id, each at the place of
// its first record with the value of its last: the rows that upserting them
// one by one leaves. A statement may not upsert one row twice.
func UniqueGenerations(gens []shlyuz.Generation) []*shlyuz.Generation {
	out := make([]*shlyuz.Generation, 0, len(gens))
	if len(gens) == 1 {
		return append(out, &gens[0])
	}
	at := make(map[string]int, len(gens))
	for i := range gens {
		g := &gens[i]
		if k, ok := at[g.ID]; ok {
			out[k] = g
			continue
		}
		at[g.ID] = len(out)
		out = append(out, g)
	}
	return out
}
