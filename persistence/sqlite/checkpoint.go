package sqlite

import (
	"context"
	"fmt"
	"os"
	"time"
)

// checkpointEvery is how often the checkpointer copies the WAL's committed
// pages into the database file, when anything was written since.
const checkpointEvery = 250 * time.Millisecond

// walLimit bounds the WAL file. A passive checkpoint copies pages but never
// shrinks the file, and SQLite restarts the WAL from its start only when a
// checkpoint copied every frame while no reader still used them: under a
// steady stream of writes and reads (many keys made while their list is
// read) that moment may never come and the file grows by every commit's
// pages. Past walLimit the checkpointer waits for the readers and truncates
// the file (journal_size_limit in pragmas trims it to the same size whenever
// SQLite restarts the WAL by itself).
const walLimit = 64 << 20

// busyTimeout is the pool's busy_timeout (pragmas).
const busyTimeout = 10 * time.Second

// truncateWait bounds how long a truncating checkpoint waits for readers
// while the writers wait for it; one that gives up is tried at the next tick.
const truncateWait = 500 * time.Millisecond

// checkpointer runs PASSIVE checkpoints beside the writers until the store
// closes. SQLite's automatic checkpoint (wal_autocheckpoint, off in pragmas)
// runs inside the commit that crosses 1,000 pages of WAL, so one request in
// a few hundred waited some milliseconds for it (the p99 of durable
// settlement); a passive checkpoint never blocks a writer or a reader.
func (s *Store) checkpointer() {
	defer close(s.cpDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-s.cpStop:
			return
		case <-t.C:
		}
		if !s.written.Swap(false) {
			continue
		}
		s.checkpoint()
	}
}

// checkpoint runs one passive checkpoint, then a truncating one when the WAL
// has grown past s.walLimit. The truncating one holds this process's writer
// token, so the writers queue in Go meanwhile rather than in SQLite's busy
// handler. A busy or failed checkpoint is tried again at the next tick.
func (s *Store) checkpoint() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
	if s.walSize() <= s.walLimit {
		return
	}
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-s.writer }()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	// SQLite's busy handler does not watch the context: the connection's own
	// busy_timeout bounds the wait, and goes back to the pool's value after.
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, truncateWait.Milliseconds())); err != nil {
		return
	}
	_, _ = conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	_, _ = conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout.Milliseconds()))
}

// walSize is the size of the WAL file now (0 when there is none).
func (s *Store) walSize() int64 {
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}
