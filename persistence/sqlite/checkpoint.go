package sqlite

import (
	"context"
	"time"
)

// checkpointEvery is how often the checkpointer copies the WAL's committed
// pages into the database file, when anything was written since.
const checkpointEvery = 250 * time.Millisecond

// checkpointer runs PASSIVE checkpoints beside the writers until the store
// closes. SQLite's automatic checkpoint (wal_autocheckpoint, off in pragmas)
// runs inside the commit that crosses 1,000 pages of WAL, so one request in
// a few hundred waited some milliseconds for it (the p99 of
// durable settlement); a passive checkpoint never blocks a writer or a reader.
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
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, _ = s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`) // a busy or failed one is tried at the next tick
		cancel()
	}
}
