package main

import (
	"context"
	"strings"

	"github.com/shlyuz/shlyuz/persistence/aheadlog"
)

// recoverJournal gives the journal its write-ahead log beside an SQLite
// database when replies wait for their charges: PATH-ahead.N next
// to the database file. What a killed predecessor left there is committed
// first; from then on a charge is durable once appended (one write(2)), and
// the store's commits are grouped at the journal's tick instead of one a
// reply. PostgreSQL (single or sql mode) keeps waiting for its commit: a
// node's local file would not reach the other nodes.
func (in *instance) recoverJournal(ctx context.Context, cs *clusterSettings, db string) error {
	if !cs.durable || !strings.HasPrefix(db, "sqlite://") {
		return nil
	}
	l, err := aheadlog.Open(strings.TrimPrefix(db, "sqlite://") + "-ahead")
	if err != nil {
		return bad("--db (SHLYUZ_DB, db in the config)", err)
	}
	if err := in.journal.Recover(ctx, l); err != nil {
		_ = l.Close()
		return bad("--db (SHLYUZ_DB, db in the config)", err)
	}
	return nil
}
