package cockroach

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
)

// soleClass is the first key of the single-node advisory lock; the second is
// a hash of the schema, so gateways on other schemas of one database never
// meet.
const soleClass = 0x5368_6c79 // "Shly"

// LockSole takes a session advisory lock on PostgreSQL without waiting, on a
// connection of its own that is held until the store is closed. The server
// lets go of it when that session ends, which a killed gateway's does at once
// (its socket closes), so a gateway that gets it knows no other single node
// serves this schema. CockroachDB has no advisory locks: false, and a
// restarted node waits out its predecessor's lease.
func (s *Store) LockSole(ctx context.Context) (bool, error) {
	if !s.postgres {
		return false, nil
	}
	s.soleMu.Lock()
	defer s.soleMu.Unlock()
	if s.sole != nil {
		return true, nil
	}
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return false, fmt.Errorf("cockroach: single-node lock: %w", err)
	}
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext(current_schema()))`, soleClass).Scan(&got); err != nil {
		_ = conn.Close(ctx)
		return false, fmt.Errorf("cockroach: single-node lock: %w", err)
	}
	if !got {
		_ = conn.Close(ctx)
		return false, fmt.Errorf("cockroach: the single-node lock is held by another session: %w", shlyuz.ErrMemberConflict)
	}
	s.sole = conn
	return true, nil
}

// closeSole lets go of the lock before it ends the lock's session (the
// server's end of a closed session may linger a moment).
func (s *Store) closeSole() {
	s.soleMu.Lock()
	defer s.soleMu.Unlock()
	if s.sole != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = s.sole.Exec(ctx, `SELECT pg_advisory_unlock_all()`)
		_ = s.sole.Close(ctx)
		s.sole = nil
	}
}
